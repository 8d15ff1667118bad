// SqliteStoreInspector: a read-only look into a SqliteWorkStore file, for tools and tests.
//
// Opens the file with SQLITE_OPEN_READONLY: it never creates the file, never runs migrations and
// never writes, so pointing it at the wrong path is harmless. A file without a -wal next to it
// (a closed store) is opened immutable, so no -wal/-shm side files appear either; a live store
// is read through its WAL. Tables an older schema version does not have read as empty.
//
//   absl::StatusOr<std::unique_ptr<whizbang::SqliteStoreInspector>> inspector =
//       whizbang::SqliteStoreInspector::open("orders.db");
//   if (!inspector.ok()) return inspector.status();  // NotFound, InvalidArgument, DataLoss, ...
//   absl::StatusOr<whizbang::StoreCounts> counts = (*inspector)->counts();
//   absl::StatusOr<std::vector<whizbang::StoredEvent>> events = (*inspector)->read_stream(id);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/envelope.hpp"
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
};

// One wh_receptor_invocations row: the exactly-once guardrail's record of a completed receptor.
struct StoredReceptorInvocation {
  MessageId message_id;
  ReceptorInvocationRecord record;
};

class SqliteStoreInspector {
 public:
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
  // The `limit` most recent rows of each table, newest first. Outbox and inbox rows carry no
  // decoded scope (OutboxMessage::scope stays empty); the envelope JSON is complete.
  absl::StatusOr<std::vector<OutboxRow>> recent_outbox(int limit);
  absl::StatusOr<std::vector<InboxRow>> recent_inbox(int limit);
  absl::StatusOr<std::vector<StoredEvent>> recent_events(int limit);
  absl::StatusOr<std::vector<PerspectiveEventRow>> recent_perspective_events(int limit);
  absl::StatusOr<std::vector<StoredReceptorInvocation>> recent_receptor_invocations(int limit);
  // A stream's events in version order (empty for an unknown stream).
  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id);

  struct Impl;

 private:
  explicit SqliteStoreInspector(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
