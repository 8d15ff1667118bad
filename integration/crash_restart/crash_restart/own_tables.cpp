#include "crash_restart/own_tables.hpp"

#include <vector>

#include "whizbang/store/sql_session.hpp"

namespace crash_restart {
namespace {

// Statements both SQLite and PostgreSQL read alike.
std::vector<std::string> schema_of(const std::string& service) {
  if (service == "sales") {
    return {
        "CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, quantity BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, balance BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS loyalty (id TEXT PRIMARY KEY, points BIGINT NOT NULL)",
        "INSERT INTO accounts (id, balance) VALUES ('customer', " +
            std::to_string(kOpeningBalance) + ") ON CONFLICT (id) DO NOTHING",
        "INSERT INTO loyalty (id, points) VALUES ('customer', 0) ON CONFLICT (id) DO NOTHING",
    };
  }
  return {
      "CREATE TABLE IF NOT EXISTS stock (sku TEXT PRIMARY KEY, count BIGINT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS shipments (order_id TEXT PRIMARY KEY, quantity BIGINT NOT "
      "NULL)",
      "INSERT INTO stock (sku, count) VALUES ('widget', " + std::to_string(kOpeningStock) +
          ") ON CONFLICT (sku) DO NOTHING",
  };
}

}  // namespace

absl::Status create_own_tables(whizbang::WorkStore& store, const std::string& service) {
  whizbang::Transaction transaction(store);
  absl::StatusOr<whizbang::SqlSession*> sql = transaction.sql();
  if (!sql.ok()) return sql.status();
  bool postgres = false;
  absl::Status looked = (*sql)->with_native([&](whizbang::NativeConnection native) {
    postgres = native.postgres != nullptr;
    return absl::OkStatus();
  });
  if (!looked.ok()) return looked;
  // Two instances of a service starting at once on one PostgreSQL schema would race to create
  // the same tables: one at a time.
  if (postgres) {
    if (auto locked = (*sql)->query("SELECT pg_advisory_xact_lock(20032005)"); !locked.ok()) {
      return locked.status();
    }
  }
  for (const std::string& statement : schema_of(service)) {
    if (absl::StatusOr<std::int64_t> done = (*sql)->execute(statement); !done.ok()) {
      return done.status();
    }
  }
  return transaction.commit();
}

}  // namespace crash_restart
