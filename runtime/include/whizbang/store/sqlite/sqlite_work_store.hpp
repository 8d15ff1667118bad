// SqliteWorkStore: the WorkStore contract on an embedded SQLite file.
//
// One connection per store object (WAL journal, synchronous=FULL unless StoreOptions::durability
// says Normal, busy timeout), prepared
// statements cached for the connection's life, 16-byte BLOB keys in WITHOUT ROWID tables, and
// every call batched in one transaction (or the caller's, see WorkStore). The schema is applied
// as numbered migrations at open, so a fresh file and a file written by an older runtime both
// end current. Several store objects (processes, or instances in one test) may share a file.
//
//   absl::StatusOr<std::unique_ptr<whizbang::SqliteWorkStore>> store =
//       whizbang::SqliteWorkStore::open("orders.db", options);
//   if (!store.ok()) return store.status();   // e.g. "'x.db' is not an SQLite database"
//
// The SQL lives in runtime/src/store/sqlite/ only; a PostgreSQL backend implements the same
// contract with its own SQL (SKIP LOCKED claims) and passes the same contract tests.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "whizbang/store/composed_work_store.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class SqliteWorkStore final : public ComposedWorkStore, public StoreReader {
 public:
  // Opens or creates the store at `path` (":memory:" for a private in-memory one).
  // DataLoss when the file is not SQLite; FailedPrecondition when it is an SQLite database that
  // is not a Whizbang store, or was written by a newer runtime.
  static absl::StatusOr<std::unique_ptr<SqliteWorkStore>> open(const std::string& path,
                                                               StoreOptions options = {});
  // The schema version this runtime migrates to.
  static int latest_schema_version();

  ~SqliteWorkStore() override;
  SqliteWorkStore(const SqliteWorkStore&) = delete;
  SqliteWorkStore& operator=(const SqliteWorkStore&) = delete;

  // The file's schema version (after migration: latest_schema_version()).
  int schema_version() const;
  const StoreOptions& options() const;

  // What the connection runs with, read back from SQLite ("wal", "full"): for diagnostics.
  struct ConnectionSettings {
    std::string journal_mode;
    std::string synchronous;  // "off", "normal", "full" or "extra"
  };
  absl::StatusOr<ConnectionSettings> connection_settings();

  // Every WorkStore call: ComposedWorkStore, forwarded to the store's role objects.

  // StoreReader
  absl::StatusOr<std::optional<OutboxRow>> find_outbox_row(const MessageId& id) override;
  absl::StatusOr<std::optional<InboxRow>> find_inbox_row(const MessageId& id) override;
  absl::StatusOr<std::vector<PerspectiveEventRow>> perspective_events(
      const Uuid& stream_id) override;

  struct Impl;

 private:
  explicit SqliteWorkStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
