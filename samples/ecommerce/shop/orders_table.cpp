#include "shop/orders_table.hpp"

#include "whizbang/store/sql_session.hpp"

namespace shop {

absl::Status create_orders_table(whizbang::WorkStore& store) {
  whizbang::Transaction transaction(store);
  absl::StatusOr<whizbang::SqlSession*> sql = transaction.sql();
  if (!sql.ok()) return sql.status();
  absl::StatusOr<std::int64_t> created = (*sql)->execute(
      "CREATE TABLE IF NOT EXISTS shop_orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, "
      "amount DOUBLE PRECISION NOT NULL, invoice_number TEXT, notifications BIGINT NOT NULL "
      "DEFAULT 0)");
  if (!created.ok()) return created.status();
  return transaction.commit();
}

absl::StatusOr<OrderRow> read_order_row(whizbang::WorkStore& store, const std::string& order_id) {
  whizbang::Transaction transaction(store);
  absl::StatusOr<whizbang::SqlSession*> sql = transaction.sql();
  if (!sql.ok()) return sql.status();
  absl::StatusOr<whizbang::SqlRows> rows = (*sql)->query(
      "SELECT customer_id, invoice_number, notifications FROM shop_orders WHERE id = $1",
      {order_id});
  if (!rows.ok()) return rows.status();
  if (rows->rows.size() != 1) return absl::NotFoundError("no row for order " + order_id);
  const whizbang::SqlRow& row = rows->rows.front();
  OrderRow order;
  order.customer_id = row.text(0).value_or("");
  order.invoice_number = row.is_null(1) ? "" : row.text(1).value_or("");
  order.notifications = row.int64(2).value_or(-1);
  return order;
}

}  // namespace shop
