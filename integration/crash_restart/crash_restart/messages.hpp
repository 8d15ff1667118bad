// The messages of the crash-and-restart harness: an order placed in "sales" is shipped by
// "fulfilment", and both facts land in one sales read model per order.
#pragma once

#include <string>

#include <whizbang/whizbang.hpp>

namespace crash_restart {

struct PlaceOrder : whizbang::Command {
  std::string order_id;
  int quantity = 0;
};

// Sales' own receptors and perspective see it, and fulfilment hears of it through the outbox.
struct [[whizbang::default_routing(whizbang::DispatchModes::Both)]] OrderPlaced : whizbang::Event {
  std::string order_id;
  int quantity = 0;
};

// Back to sales through the outbox (a cascaded event otherwise routes Local: this service only).
struct [[whizbang::default_routing(whizbang::DispatchModes::Outbox)]] OrderShipped
    : whizbang::Event {
  std::string order_id;
  int quantity = 0;
};

}  // namespace crash_restart
