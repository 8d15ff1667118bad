// The fulfilment service: ships every order sales places.
#pragma once

#include <whizbang/registry.hpp>

#include "crash_restart/messages.hpp"

namespace crash_restart {

class ShipOrderReceptor : public whizbang::Receptor<OrderPlaced, OrderShipped> {
 public:
  OrderShipped handle(const OrderPlaced& event);
};

const whizbang::Registry& fulfilment_registry();

}  // namespace crash_restart
