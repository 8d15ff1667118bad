// The shop's messages: plain structs deriving from whizbang::Event or whizbang::Command.
#pragma once

#include <string>
#include <vector>

#include <whizbang/whizbang.hpp>

namespace shop {

struct OrderLine {  // not a message: a nested plain struct inside one
  std::string sku;
  int quantity = 0;
};

struct CreateOrder : whizbang::Command {
  std::string order_id;
  std::string customer_id;
  std::vector<OrderLine> lines;
  double amount = 0;
};

// Returned to the caller of CreateOrder; not a message, so it is never cascaded.
struct OrderResult {
  std::string order_id;
  bool accepted = false;
};

// Every service that cares about orders hears of new ones: local receptors and the outbox.
struct [[whizbang::default_routing(whizbang::DispatchModes::Both)]] OrderCreated : whizbang::Event {
  std::string order_id;
  std::string customer_id;
  double amount = 0;
};

struct SendInvoice : whizbang::Command {
  std::string order_id;
  double amount = 0;
};

struct InvoiceSent : whizbang::Event {
  std::string order_id;
  std::string invoice_number;
};

struct InventoryReserved : whizbang::Event {
  std::string order_id;
  std::string sku;
  int quantity = 0;
};

// Kept for the record only: persisted to the event store, never handled, never transported.
struct OrderAudited : whizbang::Event {
  std::string order_id;
  std::string action;
};

// Emitted by the notifications service when it has told the customer about their stock.
struct CustomerNotified : whizbang::Event {
  std::string order_id;
  std::string customer_id;
};

}  // namespace shop
