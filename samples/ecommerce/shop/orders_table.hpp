// The orders service's own table (docs/guide/17-your-data.md): one row per order, written by its
// receptors through whizbang::SqlSession in their handlings' transactions. The row is created
// with the order, gets its invoice number when the invoice goes out, and counts the customer
// notifications orders heard of: after the crash the sample stages, it still shows exactly two.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "whizbang/store/work_store.hpp"

namespace shop {

// Creates the table when it is missing: run once the store is open, before any handling (the
// runner's `migrate` hook).
absl::Status create_orders_table(whizbang::WorkStore& store);

struct OrderRow {
  std::string customer_id;
  std::string invoice_number;
  std::int64_t notifications = 0;
};
// The row of `order_id`, read in a transaction of its own; NotFound when there is none.
absl::StatusOr<OrderRow> read_order_row(whizbang::WorkStore& store, const std::string& order_id);

}  // namespace shop
