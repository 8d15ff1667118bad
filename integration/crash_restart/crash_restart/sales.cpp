#include "crash_restart/sales.hpp"

#include "crash_restart/journal.hpp"
#include "crash_restart/own_tables.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang_registry.hpp"

namespace crash_restart {

OrderPlaced PlaceOrderReceptor::handle(const PlaceOrder& command) {
  // The order and the customer's debit, in the handling's transaction: once, whatever crashes.
  whizbang::SqlSession& sql = *checked(whizbang::SqlSession::current());
  checked(sql.execute("INSERT INTO orders (id, quantity) VALUES ($1, $2)",
                      {command.order_id, command.quantity}));
  checked(sql.execute("UPDATE accounts SET balance = balance - $1 WHERE id = 'customer'",
                      {command.quantity}));
  OrderPlaced placed;
  placed.order_id = command.order_id;
  placed.quantity = command.quantity;
  return placed;
}

void OrderBookPerspective::apply(OrderBookEntry& entry, const OrderPlaced& event) {
  journal::record("order-book-placed", event.order_id);
  entry.order_id = event.order_id;
  ++entry.placed;
}

void OrderBookPerspective::apply(OrderBookEntry& entry, const OrderShipped& event) {
  journal::record("order-book-shipped", event.order_id);
  if (entry.placed == 0) ++entry.shipped_before_placed;
  ++entry.shipped;
  entry.quantity_shipped += event.quantity;
}

void LoyaltyPoints::handle(const OrderShipped& event) {
  whizbang::SqlSession& sql = *checked(whizbang::SqlSession::current());
  checked(sql.execute("UPDATE loyalty SET points = points + $1 WHERE id = 'customer'",
                      {event.quantity}));
}

void ShipmentAnnouncer::handle(const OrderShipped& event) {
  journal::record("shipment-announced", event.order_id);
}

const whizbang::Registry& sales_registry() {
  return whizbang::generated::crash_restart_sales::registry();
}

}  // namespace crash_restart
