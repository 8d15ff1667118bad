#include "trace_e2e/orders.hpp"

#include "whizbang_registry.hpp"

namespace trace_e2e {

OrderPlaced PlaceOrderReceptor::handle(const PlaceOrder& command) {
  OrderPlaced placed;
  placed.order_id = command.order_id;
  return placed;
}

void AuditOrder::handle(const OrderPlaced&) {}

const whizbang::Registry& orders_registry() {
  return whizbang::generated::trace_e2e_orders::registry();
}

}  // namespace trace_e2e
