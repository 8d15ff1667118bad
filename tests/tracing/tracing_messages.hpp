// Messages and receptors of the tracing tests: an order placed in one service and shipped in
// another, a receptor that fails while told to (retries), and a void event for local publishes.
#pragma once

#include <whizbang/whizbang.hpp>

#include <mutex>
#include <stdexcept>
#include <string>

namespace tracing_test {

struct PlaceOrder : whizbang::Command {
  std::string order_id;
};

struct [[whizbang::default_routing(whizbang::DispatchModes::Outbox)]] OrderPlaced
    : whizbang::Event {
  std::string order_id;
};

struct [[whizbang::default_routing(whizbang::DispatchModes::Outbox)]] OrderShipped
    : whizbang::Event {
  std::string order_id;
};

struct ChargeCard : whizbang::Command {
  std::string order_id;
};

struct Pinged : whizbang::Event {
  int n = 0;
};

// What the receptors did; `failures_left` makes CardCharger throw that many times.
struct TraceLog {
  std::mutex mutex;
  int failures_left = 0;
  int charged = 0;
  int pinged = 0;
  int shipped = 0;
};

class PlaceOrderReceptor : public whizbang::Receptor<PlaceOrder, OrderPlaced> {
 public:
  OrderPlaced handle(const PlaceOrder& command) {
    OrderPlaced placed;
    placed.order_id = command.order_id;
    return placed;
  }
};

class ShipOrderReceptor : public whizbang::Receptor<OrderPlaced, OrderShipped> {
 public:
  explicit ShipOrderReceptor(TraceLog& log) : log_(log) {}
  OrderShipped handle(const OrderPlaced& placed) {
    {
      std::lock_guard lock(log_.mutex);
      ++log_.shipped;
    }
    OrderShipped shipped;
    shipped.order_id = placed.order_id;
    return shipped;
  }

 private:
  TraceLog& log_;
};

class CardCharger : public whizbang::Receptor<ChargeCard> {
 public:
  explicit CardCharger(TraceLog& log) : log_(log) {}
  void handle(const ChargeCard&) {
    std::lock_guard lock(log_.mutex);
    if (log_.failures_left > 0) {
      --log_.failures_left;
      throw std::runtime_error("card declined");
    }
    ++log_.charged;
  }

 private:
  TraceLog& log_;
};

class PingReceptor : public whizbang::Receptor<Pinged> {
 public:
  explicit PingReceptor(TraceLog& log) : log_(log) {}
  void handle(const Pinged&) {
    std::lock_guard lock(log_.mutex);
    ++log_.pinged;
  }

 private:
  TraceLog& log_;
};

}  // namespace tracing_test

namespace tracing_test {

struct Audited : whizbang::Event {
  std::string what;
};

// Fires once for a message across every service: its guardrail asks "anywhere".
class [[whizbang::once_across_services]] AuditOnce : public whizbang::Receptor<Audited> {
 public:
  void handle(const Audited&) {}
};

}  // namespace tracing_test

namespace tracing_test {

// A read model of placed orders (a perspective, so its applies are traced).
struct PlacedOrders {
  int count = 0;
};

class PlacedOrdersPerspective : public whizbang::Perspective<PlacedOrders> {
 public:
  void apply(PlacedOrders& model, const OrderPlaced&) { ++model.count; }
};

}  // namespace tracing_test
