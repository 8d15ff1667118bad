#include "crash_restart/fulfilment.hpp"

#include "crash_restart/journal.hpp"
#include "whizbang_registry.hpp"

namespace crash_restart {

OrderShipped ShipOrderReceptor::handle(const OrderPlaced& event) {
  journal::record("order-shipped", event.order_id);
  OrderShipped shipped;
  shipped.order_id = event.order_id;
  shipped.quantity = event.quantity;
  return shipped;
}

void ShippingLabelPrinter::handle(const OrderShipped& event) {
  journal::record("label-printed", event.order_id);
}

const whizbang::Registry& fulfilment_registry() {
  return whizbang::generated::crash_restart_fulfilment::registry();
}

}  // namespace crash_restart
