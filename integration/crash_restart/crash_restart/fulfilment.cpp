#include "crash_restart/fulfilment.hpp"

#include "whizbang_registry.hpp"

namespace crash_restart {

OrderShipped ShipOrderReceptor::handle(const OrderPlaced& event) {
  OrderShipped shipped;
  shipped.order_id = event.order_id;
  shipped.quantity = event.quantity;
  return shipped;
}

const whizbang::Registry& fulfilment_registry() {
  return whizbang::generated::crash_restart_fulfilment::registry();
}

}  // namespace crash_restart
