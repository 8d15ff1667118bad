// SqliteStoreInspector: a read-only look into a SqliteWorkStore file, for tools and tests.
//
// Opens the file with SQLITE_OPEN_READONLY: it never creates the file, never runs migrations and
// never writes, so pointing it at the wrong path is harmless. A file with no -wal next to it, or
// an empty -wal and no -shm (a closed store), is opened immutable, so no -wal/-shm side files
// appear either; a live store (its -wal and -shm exist) is read through its WAL. Only a non-empty
// -wal without a -shm (a killed writer's, its -shm removed) gets a -shm: SQLite needs it to read
// the commits only that WAL holds. Tables an older schema version does not have read as empty,
// and a file older than schema version 5 (kDeadLettersSchemaVersion) has no dead letters. A file
// of a newer schema version is read as far as this runtime knows it (schema_is_newer()).
//
//   absl::StatusOr<std::unique_ptr<whizbang::SqliteStoreInspector>> inspector =
//       whizbang::SqliteStoreInspector::open("orders.db");
//   if (!inspector.ok()) return inspector.status();  // NotFound, InvalidArgument, DataLoss, ...
//   absl::StatusOr<whizbang::StoreCounts> counts = (*inspector)->counts();
//   absl::StatusOr<std::vector<whizbang::StoredEvent>> events = (*inspector)->read_stream(id);
//   absl::StatusOr<std::vector<whizbang::DeadLetter>> letters = (*inspector)->dead_letters(-1);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/message/envelope.hpp"
#include "whizbang/store/store_inspector.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang {

class SqliteStoreInspector final : public StoreInspector {
 public:
  // The migration that added dead letters (dead_lettered_at, wh_lifecycle_completions,
  // wh_detached_work).
  static constexpr int kDeadLettersSchemaVersion = 5;

  // NotFound: no file at `path`. InvalidArgument: `path` is a directory or not a regular file.
  // DataLoss: not an SQLite database. FailedPrecondition: an SQLite database that is not a
  // Whizbang store (no wh_schema_version or wh_outbox table).
  static absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> open(const std::string& path);

  ~SqliteStoreInspector() override;
  SqliteStoreInspector(const SqliteStoreInspector&) = delete;
  SqliteStoreInspector& operator=(const SqliteStoreInspector&) = delete;

  const std::string& path() const;
  const std::string& location() const override { return path(); }
  // The highest migration applied to the file.
  int schema_version() const override;
  int known_schema_version() const override;
  bool keeps_dead_letters() const override { return schema_version() >= kDeadLettersSchemaVersion; }

  absl::StatusOr<StoreCounts> counts() override;
  // The `limit` most recent rows of each table, newest first, decoded as the work store's own
  // reads decode them; a column the file's schema version lacks reads as empty.
  absl::StatusOr<std::vector<OutboxRow>> recent_outbox(int limit) override;
  absl::StatusOr<std::vector<InboxRow>> recent_inbox(int limit) override;
  absl::StatusOr<std::vector<StoredEvent>> recent_events(int limit) override;
  absl::StatusOr<std::vector<PerspectiveEventRow>> recent_perspective_events(int limit) override;
  absl::StatusOr<std::vector<StoredReceptorInvocation>> recent_receptor_invocations(
      int limit) override;
  // A stream's events in version order (empty for an unknown stream).
  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) override;
  // Dead letters of every kind, oldest dead letter first, at most `limit` (negative: all): what
  // WorkStore::dead_letters answers, read with the same SQL. Empty before schema version 5.
  absl::StatusOr<std::vector<DeadLetter>> dead_letters(int limit) override;

  struct Impl;

 private:
  explicit SqliteStoreInspector(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
