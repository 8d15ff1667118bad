// The fulfilment service: ships every order sales places.
#pragma once

#include <whizbang/registry/registry.hpp>

#include "crash_restart/messages.hpp"

namespace crash_restart {

// Default stages: with an executor, PostInboxDetached runs it on the pool.
class ShipOrderReceptor : public whizbang::Receptor<OrderPlaced, OrderShipped> {
 public:
  OrderShipped handle(const OrderPlaced& event);
};

// Prints the shipping label once the shipment left for sales (an outbox stage).
class [[whizbang::fire_at(whizbang::Stage::PostOutboxInline)]] ShippingLabelPrinter
    : public whizbang::Receptor<OrderShipped> {
 public:
  void handle(const OrderShipped& event);
};

const whizbang::Registry& fulfilment_registry();

}  // namespace crash_restart
