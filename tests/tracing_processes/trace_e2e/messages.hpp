// The messages of the two-process tracing test: an order placed in "orders" is shipped by
// "shipping" over RabbitMQ (docs/guide/18-tracing.md).
#pragma once

#include <whizbang/whizbang.hpp>

#include <string>

namespace trace_e2e {

struct PlaceOrder : whizbang::Command {
  std::string order_id;
};

// Orders' own receptors see it (so their invocations travel in the envelope), and shipping
// hears of it through the outbox.
struct [[whizbang::default_routing(whizbang::DispatchModes::Both)]] OrderPlaced : whizbang::Event {
  std::string order_id;
};

}  // namespace trace_e2e
