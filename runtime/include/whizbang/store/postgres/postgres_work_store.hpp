// PostgresWorkStore: the WorkStore contract on a PostgreSQL database (libpq), for services that
// run several instances against one database (docs/guide/06-stores-and-workers.md).
//
// One connection per store object; every call runs in one transaction (or the caller's, see
// WorkStore). Claims take rows with FOR UPDATE SKIP LOCKED, so instances never claim a row
// twice; a stream's rows are still handled in order. Every emitted outbox id passes one unique
// index, so a re-emission racing a completion stays a counted no-op. The schema is applied as
// numbered migrations at open, under an advisory lock, in the connection's current schema
// (search_path): several stores can share one database in separate schemas.
//
//   // conninfo: "host=db.internal dbname=orders user=orders" or "postgresql://orders@db/orders";
//   // empty: the WHIZBANG_PG_CONNINFO environment variable.
//   absl::StatusOr<std::unique_ptr<whizbang::PostgresWorkStore>> store =
//       whizbang::PostgresWorkStore::open("postgresql://orders@db.internal/orders", options);
//
// StoreOptions::durability Normal turns synchronous_commit off for the store's connection: a
// server crash can lose the last commits (never duplicate them).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "whizbang/store/composed_work_store.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class PostgresWorkStore final : public ComposedWorkStore, public StoreReader {
 public:
  // The environment variable `open` reads when given no conninfo.
  static constexpr const char* kConninfoVariable = "WHIZBANG_PG_CONNINFO";

  // Connects and migrates. Unavailable when the server cannot be reached; FailedPrecondition
  // when the schema is not a Whizbang store or was written by a newer runtime; InvalidArgument
  // without a conninfo. Errors name the database and host, never the conninfo (it may hold a
  // password).
  static absl::StatusOr<std::unique_ptr<PostgresWorkStore>> open(std::string conninfo,
                                                                 StoreOptions options = {});
  // The schema version this runtime migrates to.
  static int latest_schema_version();

  ~PostgresWorkStore() override;
  PostgresWorkStore(const PostgresWorkStore&) = delete;
  PostgresWorkStore& operator=(const PostgresWorkStore&) = delete;

  int schema_version() const;
  const StoreOptions& options() const;

  // Every WorkStore call: ComposedWorkStore, forwarded to the store's role objects.

  // StoreReader
  absl::StatusOr<std::optional<OutboxRow>> find_outbox_row(const MessageId& id) override;
  absl::StatusOr<std::optional<InboxRow>> find_inbox_row(const MessageId& id) override;
  absl::StatusOr<std::vector<PerspectiveEventRow>> perspective_events(
      const Uuid& stream_id) override;

  struct Impl;

 private:
  explicit PostgresWorkStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
