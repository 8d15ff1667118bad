#include "crash_restart/sales.hpp"

#include "whizbang_registry.hpp"

namespace crash_restart {

OrderPlaced PlaceOrderReceptor::handle(const PlaceOrder& command) {
  OrderPlaced placed;
  placed.order_id = command.order_id;
  placed.quantity = command.quantity;
  return placed;
}

void OrderBookPerspective::apply(OrderBookEntry& entry, const OrderPlaced& event) {
  entry.order_id = event.order_id;
  ++entry.placed;
}

void OrderBookPerspective::apply(OrderBookEntry& entry, const OrderShipped& event) {
  ++entry.shipped;
  entry.quantity_shipped += event.quantity;
}

const whizbang::Registry& sales_registry() {
  return whizbang::generated::crash_restart_sales::registry();
}

}  // namespace crash_restart
