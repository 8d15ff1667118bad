// SqliteWorkStore: opening a file (WAL, migrations, durability) and composing its role objects.
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

#include <algorithm>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_store_impl.hpp"

namespace whizbang {

using sqlite::Use;

namespace {

// Switches `connection` to WAL (readers never wait for the writer) and checks that it took: a
// file system without shared memory, or a read-only directory, leaves the journal in another mode
// with other locking, which the store's concurrency does not expect.
absl::Status use_wal(sqlite::Connection& connection) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection.prepare("PRAGMA journal_mode=WAL"));
  Use use(connection, stmt);
  WB_ASSIGN_OR_RETURN(bool row, use.step());
  const std::string mode = row ? use.text(0) : std::string();
  if (mode == "wal" || (mode == "memory" && connection.path() == ":memory:")) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(fmt::format(
      "SQLite store '{}': journal_mode=WAL did not take (the journal mode is '{}'); the store "
      "needs WAL: put the file on a local file system that supports shared memory",
      connection.path(), mode));
}

// How long opening waits for other connections' locks, both in SQLite's busy handler and in
// `prepare_file`'s retries.
constexpr int kBusyTimeoutMillis = 5000;

// Switches the file to WAL, then migrates it (in WAL mode, so readers of a live file never wait
// for a migration). Stores opening one new file at once meet in the switch: each takes a read
// lock to look at the file's header, one of them upgrades to the write lock, and SQLite answers
// the others SQLITE_BUSY at once, without waiting in the busy handler (they hold the read lock
// the upgrade waits for). The way out is to let go of every lock and start again; both steps are
// idempotent, so the retry repeats them whole.
absl::StatusOr<int> prepare_file(sqlite::Connection& connection) {
  const absl::Time deadline = absl::Now() + absl::Milliseconds(kBusyTimeoutMillis);
  absl::Duration pause = absl::Milliseconds(1);
  while (true) {
    absl::Status status = use_wal(connection);
    if (absl::IsDataLoss(status)) {
      return absl::DataLossError(fmt::format("'{}' is not an SQLite database: {}",
                                             connection.path(), std::string(status.message())));
    }
    if (status.ok()) {
      absl::StatusOr<int> version = sqlite::migrate(connection);
      if (version.ok()) return version;
      status = version.status();
    }
    if (!absl::IsUnavailable(status) || absl::Now() + pause > deadline) return status;
    absl::SleepFor(pause);  // the other opener is mid-switch: milliseconds, not a poll loop
    pause = std::min(pause * 2, absl::Milliseconds(50));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteWorkStore>> SqliteWorkStore::open(const std::string& path,
                                                                       StoreOptions options) {
  WB_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Connection> connection,
                      sqlite::Connection::open(path, options.file_mode));
  sqlite3_busy_timeout(connection->db(), kBusyTimeoutMillis);
  WB_ASSIGN_OR_RETURN(int version, prepare_file(*connection));
  // FULL: a commit is on disk when it returns, so what the inbox acknowledged survives a power
  // loss. NORMAL syncs at checkpoints only (StoreOptions::durability).
  WB_RETURN_IF_ERROR(connection->exec(options.durability == Durability::Full
                                          ? "PRAGMA synchronous=FULL"
                                          : "PRAGMA synchronous=NORMAL"));
  auto impl = std::make_unique<Impl>(std::move(connection), std::move(options));
  impl->schema_version = version;
  return std::unique_ptr<SqliteWorkStore>(new SqliteWorkStore(std::move(impl)));
}

int SqliteWorkStore::latest_schema_version() { return sqlite::latest_schema_version(); }

SqliteWorkStore::SqliteWorkStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  compose(impl_->roles());
}

SqliteWorkStore::~SqliteWorkStore() = default;

int SqliteWorkStore::schema_version() const { return impl_->schema_version; }

absl::StatusOr<SqliteWorkStore::ConnectionSettings> SqliteWorkStore::connection_settings() {
  return impl_->gate.run_read([&]() -> absl::StatusOr<ConnectionSettings> {
    auto read = [&](const std::string& pragma) -> absl::StatusOr<std::string> {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, impl_->connection->prepare(pragma));
      Use use(*impl_->connection, stmt);
      WB_ASSIGN_OR_RETURN(bool row, use.step());
      return row ? use.text(0) : std::string();
    };
    ConnectionSettings settings;
    WB_ASSIGN_OR_RETURN(settings.journal_mode, read("PRAGMA journal_mode"));
    WB_ASSIGN_OR_RETURN(settings.synchronous, read("PRAGMA synchronous"));
    // SQLite answers the level's number (0..3).
    static const std::string kLevels[] = {"off", "normal", "full", "extra"};
    for (int level = 0; level < 4; ++level) {
      if (settings.synchronous == std::to_string(level)) settings.synchronous = kLevels[level];
    }
    return settings;
  });
}

const StoreOptions& SqliteWorkStore::options() const { return impl_->options; }

}  // namespace whizbang
