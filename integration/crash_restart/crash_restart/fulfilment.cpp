#include "crash_restart/fulfilment.hpp"

#include "crash_restart/journal.hpp"
#include "crash_restart/own_tables.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang_registry.hpp"

namespace crash_restart {

OrderShipped ShipOrderReceptor::handle(const OrderPlaced& event) {
  // The stock taken and the shipment noted, in the handling's transaction.
  whizbang::SqlSession& sql = *checked(whizbang::SqlSession::current());
  checked(
      sql.execute("UPDATE stock SET count = count - $1 WHERE sku = 'widget'", {event.quantity}));
  checked(sql.execute("INSERT INTO shipments (order_id, quantity) VALUES ($1, $2)",
                      {event.order_id, event.quantity}));
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
