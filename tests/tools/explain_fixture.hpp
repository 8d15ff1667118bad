// A small annotated target for the `whizbang gen explain` tests: one receptor per flag.
#pragma once

#include <string>

#include <whizbang/attributes.hpp>

namespace explain {

struct PlaceOrder : whizbang::Command {
  std::string order_id;
};

struct [[whizbang::wire_name("explain.OrderPlaced")]] OrderPlaced : whizbang::Event {
  std::string order_id;
};

class Clock {
 public:
  virtual ~Clock() = default;
};

class PlaceOrderReceptor : public whizbang::Receptor<PlaceOrder, OrderPlaced> {
 public:
  OrderPlaced handle(const PlaceOrder& command) { return {{}, command.order_id}; }
};

class [[whizbang::idempotent, whizbang::fire_at(whizbang::Stage::PostInboxInline)]] ProjectOrder
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit ProjectOrder(Clock& clock) : clock_(clock) {}
  void handle(const OrderPlaced&) {}

 private:
  Clock& clock_;
};

class [[whizbang::idempotent(whizbang::OnReplay::AlwaysFire),
        whizbang::once_across_services]] NotifyCustomer : public whizbang::Receptor<OrderPlaced> {
 public:
  void handle(const OrderPlaced&) {}
};

}  // namespace explain
