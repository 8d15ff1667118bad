// Golden case: the guide's shop example (chapter 1), plus codecs of every supported field kind.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <whizbang/attributes.hpp>
#include <whizbang/ids/message_id.hpp>
#include <whizbang/ids/uuid.hpp>

namespace shop {

enum class Currency : std::uint8_t { Eur = 0, Usd = 1 };

struct Address {
  std::string street;
  std::optional<std::string> city;
};

struct Line {
  std::string sku;
  std::int32_t quantity = 0;
  Address ship_to;
};

struct CreateOrder : whizbang::Command {
  std::string order_id;
  std::string customer_id;
  double amount = 0;
  Currency currency = Currency::Eur;
  bool express = false;
  std::vector<Line> lines;
  std::map<std::string, std::int64_t> tags;
  whizbang::Uuid customer_uuid;
  whizbang::MessageId correlation;
  std::chrono::system_clock::time_point placed_at;
};

struct [[whizbang::wire_name("shop.OrderCreated")]] OrderCreated : whizbang::Event {
  std::string order_id;
  std::string customer_id;
};

struct SendInvoice : whizbang::Command {
  std::string order_id;
};

struct OrderResult {  // not a message: only returned
  std::string order_id;
};

class Mailer {
 public:
  virtual ~Mailer() = default;
};

class CreateOrderReceptor
    : public whizbang::Receptor<CreateOrder, std::tuple<OrderResult, OrderCreated, SendInvoice>> {
 public:
  std::tuple<OrderResult, OrderCreated, SendInvoice> handle(const CreateOrder& cmd);
};

class [[whizbang::once_across_services]] OrderConfirmationEmail
    : public whizbang::Receptor<OrderCreated> {
 public:
  explicit OrderConfirmationEmail(Mailer& mailer);
  void handle(const OrderCreated& event);

 private:
  Mailer& mailer_;
};

class SendInvoiceReceptor : public whizbang::Receptor<SendInvoice> {
 public:
  void handle(const SendInvoice& cmd);
};

}  // namespace shop
