// StoreInspector: a read-only look into a Whizbang store, for tools (`whizbang store`) and tests.
//
// SqliteStoreInspector reads a store file, PostgresStoreInspector a PostgreSQL schema; neither
// creates, migrates or writes anything. `open_store_inspector` picks one from a store location
// (open_work_store.hpp):
//
//   auto inspector = whizbang::open_store_inspector("orders.db");   // or "postgresql://…"
//   if (!inspector.ok()) return inspector.status();
//   absl::StatusOr<whizbang::StoreCounts> counts = (*inspector)->counts();
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
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

class StoreInspector {
 public:
  virtual ~StoreInspector() = default;

  // What the inspector reads, for people: a file's path, or "database 'x' on 'y'" (never a
  // conninfo, which may hold a password).
  virtual const std::string& location() const = 0;
  // The highest migration applied to the store.
  virtual int schema_version() const = 0;
  // The newest schema version this runtime knows for the store's backend. A store with a higher
  // schema_version() was migrated by a newer runtime: what that added (tables, columns, states)
  // is not read, so the output may be incomplete. The `whizbang store` commands then warn on
  // stderr; a work store refuses to open it (open_work_store: FailedPrecondition).
  virtual int known_schema_version() const = 0;
  bool schema_is_newer() const { return schema_version() > known_schema_version(); }
  // False for a SQLite file older than dead letters (schema version 5).
  virtual bool keeps_dead_letters() const = 0;

  virtual absl::StatusOr<StoreCounts> counts() = 0;
  // The `limit` most recent rows of each table, newest first, decoded as the work store's own
  // reads decode them.
  virtual absl::StatusOr<std::vector<OutboxRow>> recent_outbox(int limit) = 0;
  virtual absl::StatusOr<std::vector<InboxRow>> recent_inbox(int limit) = 0;
  virtual absl::StatusOr<std::vector<StoredEvent>> recent_events(int limit) = 0;
  virtual absl::StatusOr<std::vector<PerspectiveEventRow>> recent_perspective_events(int limit) = 0;
  virtual absl::StatusOr<std::vector<StoredReceptorInvocation>> recent_receptor_invocations(
      int limit) = 0;
  // A stream's events in version order (empty for an unknown stream).
  virtual absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) = 0;
  // Dead letters of every kind, oldest dead letter first, at most `limit` (negative: all): what
  // WorkStore::dead_letters answers.
  virtual absl::StatusOr<std::vector<DeadLetter>> dead_letters(int limit) = 0;
};

// The inspector of the store `location` names (a SQLite path or a PostgreSQL conninfo, as
// open_work_store reads it). "memory:" has nothing to inspect: InvalidArgument.
absl::StatusOr<std::unique_ptr<StoreInspector>> open_store_inspector(std::string_view location);

}  // namespace whizbang
