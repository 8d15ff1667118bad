// SqliteStoreInspector: a read-only look into a SqliteWorkStore file, for tools and tests.
//
// Opens the file with SQLITE_OPEN_READONLY: it never creates the file, never runs migrations and
// never writes, so pointing it at the wrong path is harmless. A file without a -wal next to it
// (a closed store) is opened immutable, so no -wal/-shm side files appear either; a live store
// is read through its WAL. Tables an older schema version does not have read as empty, and a
// file older than schema version 5 (kDeadLettersSchemaVersion) has no dead letters.
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
#include "whizbang/store/store_rows.hpp"

namespace whizbang {

// Row counts of the tables a Whizbang store keeps work and history in.
struct StoreCounts {
  std::int64_t outbox = 0;
  std::int64_t outbox_tombstones = 0;  // published outbox rows (deleted, id kept)
  std::int64_t inbox = 0;
  std::int64_t event_store = 0;
  std::int64_t perspective_events = 0;
  std::int64_t receptor_invocations = 0;
  // Dead-lettered rows (dead_lettered_at set) of each table that keeps dead letters, by table
  // name ("wh_outbox", "wh_inbox", "wh_perspective_events", "wh_lifecycle_completions",
  // "wh_detached_work", and any a later schema adds), zeros included; empty before schema
  // version 5.
  std::map<std::string, std::int64_t> dead_lettered;

  std::int64_t dead_lettered_in(const std::string& table) const {
    const auto it = dead_lettered.find(table);
    return it == dead_lettered.end() ? 0 : it->second;
  }
  std::int64_t dead_letters() const {
    std::int64_t total = 0;
    for (const auto& [table, count] : dead_lettered) total += count;
    return total;
  }
};

// One wh_receptor_invocations row: the exactly-once guardrail's record of a completed receptor.
struct StoredReceptorInvocation {
  MessageId message_id;
  ReceptorInvocationRecord record;
};

class SqliteStoreInspector {
 public:
  // The migration that added dead letters (dead_lettered_at, wh_lifecycle_completions,
  // wh_detached_work).
  static constexpr int kDeadLettersSchemaVersion = 5;

  // NotFound: no file at `path`. InvalidArgument: `path` is a directory or not a regular file.
  // DataLoss: not an SQLite database. FailedPrecondition: an SQLite database that is not a
  // Whizbang store (no wh_schema_version or wh_outbox table).
  static absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> open(const std::string& path);

  ~SqliteStoreInspector();
  SqliteStoreInspector(const SqliteStoreInspector&) = delete;
  SqliteStoreInspector& operator=(const SqliteStoreInspector&) = delete;

  const std::string& path() const;
  // The highest migration applied to the file.
  int schema_version() const;

  absl::StatusOr<StoreCounts> counts();
  // The `limit` most recent rows of each table, newest first, decoded as the work store's own
  // reads decode them; a column the file's schema version lacks reads as empty.
  absl::StatusOr<std::vector<OutboxRow>> recent_outbox(int limit);
  absl::StatusOr<std::vector<InboxRow>> recent_inbox(int limit);
  absl::StatusOr<std::vector<StoredEvent>> recent_events(int limit);
  absl::StatusOr<std::vector<PerspectiveEventRow>> recent_perspective_events(int limit);
  absl::StatusOr<std::vector<StoredReceptorInvocation>> recent_receptor_invocations(int limit);
  // A stream's events in version order (empty for an unknown stream).
  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id);
  // Dead letters of every kind, oldest dead letter first, at most `limit` (negative: all): what
  // WorkStore::dead_letters answers, read with the same SQL. Empty before schema version 5.
  absl::StatusOr<std::vector<DeadLetter>> dead_letters(int limit);

  struct Impl;

 private:
  explicit SqliteStoreInspector(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
