// The stores a crash harness reads while its workers write them: the services' SQLite files,
// or a PostgreSQL schema per service, behind one interface (Stores) with the few expressions the
// two SQL dialects spell differently.
#pragma once

#include <libpq-fe.h>
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "support/postgres_schema.hpp"

namespace crash_harness {

// Queries over a store file, also while workers write it. Opened read-write (never created) so
// that it can rebuild the WAL index a killed worker left behind; it issues no writes.
class StoreFile {
 public:
  explicit StoreFile(const std::filesystem::path& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db_);
    }
    sqlite3_busy_timeout(db_, 5000);  // a worker may be committing
  }
  ~StoreFile() { sqlite3_close(db_); }
  StoreFile(const StoreFile&) = delete;
  StoreFile& operator=(const StoreFile&) = delete;

  std::int64_t scalar(const std::string& sql) const {
    sqlite3_stmt* statement = nullptr;
    std::int64_t value = -1;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      value = sqlite3_column_int64(statement, 0);
    } else {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
    }
    sqlite3_finalize(statement);
    return value;
  }

 private:
  sqlite3* db_ = nullptr;
};

// The stores of the harness's two services ("sales", "fulfilment"), read while workers write
// them: SQLite files in the data directory, or a PostgreSQL schema per service. The checks below
// are written once over this, with the few expressions the two SQL dialects spell differently.
class Stores {
 public:
  virtual ~Stores() = default;

  // The first column of the first row `sql` returns from `service`'s store (-1 and a test
  // failure when the query fails).
  virtual std::int64_t scalar(const std::string& service, const std::string& sql) const = 0;
  // Whether both stores have their tables (the `submit` step creates them).
  virtual bool created() const = 0;
  // The count of outbox ids published (and remembered to keep re-emissions out).
  virtual std::string published_ids() const = 0;
  // A field of the order book's JSON model, as an integer or as text.
  virtual std::string model_integer(const std::string& field) const = 0;
  virtual std::string model_text(const std::string& field) const = 0;
  // What the workers are told (WHIZBANG_CRASH_STORES, crash_restart/store_location.hpp); empty:
  // their default, <data-dir>/<service>.db.
  virtual std::string worker_locations() const { return {}; }
  // Deletes what the stores keep outside the data directory (once a round passed: a failed one
  // keeps it to look at).
  virtual void discard() {}
};

// <dir>/sales.db and <dir>/fulfilment.db, each opened per query: a worker killed mid-write
// leaves a WAL that the next open recovers.
class SqliteStores final : public Stores {
 public:
  explicit SqliteStores(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::int64_t scalar(const std::string& service, const std::string& sql) const override {
    return StoreFile(dir_ / (service + ".db")).scalar(sql);
  }
  bool created() const override { return std::filesystem::exists(dir_ / "fulfilment.db"); }
  std::string published_ids() const override { return "SELECT count(*) FROM wh_outbox_tombstones"; }
  std::string model_integer(const std::string& field) const override {
    return "json_extract(model_data, '$." + field + "')";
  }
  std::string model_text(const std::string& field) const override { return model_integer(field); }

 private:
  std::filesystem::path dir_;
};

// The schemas <prefix>_sales and <prefix>_fulfilment on the run's PostgreSQL server, created
// empty by the constructor and dropped by `drop()`. One connection per service, kept open: the
// harness polls its progress every millisecond.
class PostgresStores final : public Stores {
 public:
  PostgresStores(std::string conninfo, std::string prefix)
      : conninfo_(std::move(conninfo)), prefix_(std::move(prefix)) {
    for (const char* service : {"sales", "fulfilment"}) {
      const std::string schema = prefix_ + "_" + service;
      admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
    }
  }
  ~PostgresStores() override {
    for (auto& [service, connection] : connections_) PQfinish(connection);
  }
  PostgresStores(const PostgresStores&) = delete;
  PostgresStores& operator=(const PostgresStores&) = delete;

  void discard() override {
    for (const char* service : {"sales", "fulfilment"}) {
      admin("DROP SCHEMA IF EXISTS " + prefix_ + "_" + service + " CASCADE");
    }
  }

  std::int64_t scalar(const std::string& service, const std::string& sql) const override {
    PGconn* connection = connect(service);
    if (connection == nullptr) return -1;
    PGresult* result = PQexec(connection, sql.c_str());
    std::int64_t value = -1;
    if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1) {
      value = PQgetisnull(result, 0, 0) ? 0 : std::atoll(PQgetvalue(result, 0, 0));
    } else {
      ADD_FAILURE() << sql << ": " << PQerrorMessage(connection);
    }
    PQclear(result);
    return value;
  }
  bool created() const override {
    return scalar("fulfilment", "SELECT count(*) FROM pg_tables WHERE schemaname = '" + prefix_ +
                                    "_fulfilment' AND tablename = 'wh_outbox'") == 1;
  }
  std::string published_ids() const override {
    // Ids whose row is gone: published (the store keeps an id after its row, for dedup).
    return "SELECT count(*) FROM wh_outbox_ids AS ids WHERE NOT EXISTS "
           "(SELECT 1 FROM wh_outbox AS o WHERE o.message_id = ids.message_id)";
  }
  std::string model_integer(const std::string& field) const override {
    return "(model_data::jsonb->>'" + field + "')::bigint";
  }
  std::string model_text(const std::string& field) const override {
    return "(model_data::jsonb->>'" + field + "')";
  }
  std::string worker_locations() const override {
    return whizbang_test::with_search_path(conninfo_, prefix_ + "_{service}");
  }

 private:
  PGconn* connect(const std::string& service) const {
    PGconn*& connection = connections_[service];
    if (connection != nullptr && PQstatus(connection) == CONNECTION_OK) return connection;
    PQfinish(connection);
    connection =
        PQconnectdb(whizbang_test::with_search_path(conninfo_, prefix_ + "_" + service).c_str());
    if (PQstatus(connection) != CONNECTION_OK) {
      ADD_FAILURE() << "cannot reach the test PostgreSQL server: " << PQerrorMessage(connection);
      PQfinish(connection);
      connection = nullptr;
    }
    return connection;
  }
  // Quiet: DROP SCHEMA … CASCADE would print a notice per table.
  void admin(const std::string& sql) const {
    whizbang_test::postgres_admin(conninfo_, "SET client_min_messages = warning; " + sql);
  }

  std::string conninfo_;
  std::string prefix_;
  mutable std::map<std::string, PGconn*> connections_;
};

}  // namespace crash_harness
