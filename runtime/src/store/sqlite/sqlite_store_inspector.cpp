#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"

#include <filesystem>
#include <set>
#include <system_error>

#include "fmt/format.h"
#include "store/sqlite/migrations.hpp"
#include "store/sqlite/sql.hpp"
#include "store/sqlite/statement.hpp"
#include "store/store_support.hpp"

namespace whizbang {

using sqlite::Connection;
using sqlite::Use;
using store_internal::from_micros;

struct SqliteStoreInspector::Impl {
  std::unique_ptr<Connection> connection;
  std::set<std::string> tables;
  int schema_version = 0;

  bool has(const std::string& table) const { return tables.count(table) > 0; }
  bool has_dead_letters() const {
    return schema_version >= SqliteStoreInspector::kDeadLettersSchemaVersion;
  }

  // The rows of `table` (those matching `where`, when given).
  absl::StatusOr<std::int64_t> count(const std::string& table, const std::string& where = "") {
    if (!has(table)) return 0;
    absl::StatusOr<sqlite3_stmt*> stmt = connection->prepare(
        "SELECT count(*) FROM " + table + (where.empty() ? "" : " WHERE " + where));
    if (!stmt.ok()) return stmt.status();
    Use use(*connection, *stmt);
    absl::StatusOr<bool> row = use.step();
    if (!row.ok()) return row.status();
    return *row ? use.int64(0) : 0;
  }

  // Runs `sql` (with ?1 = limit, when it has a parameter; SQLite reads a negative limit as none)
  // over `table` and decodes each row.
  template <class Row, class Decode>
  absl::StatusOr<std::vector<Row>> rows(const std::string& table, const std::string& sql, int limit,
                                        Decode decode) {
    std::vector<Row> out;
    if (!has(table)) return out;
    absl::StatusOr<sqlite3_stmt*> stmt = connection->prepare(sql);
    if (!stmt.ok()) return stmt.status();
    Use use(*connection, *stmt);
    if (sqlite3_bind_parameter_count(*stmt) > 0) use.bind_int(1, static_cast<std::int64_t>(limit));
    while (true) {
      absl::StatusOr<bool> row = use.step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      out.push_back(decode(use));
    }
    return out;
  }
};

namespace {

// Columns 0..9 of the outbox/inbox queries below: lease and retry state.
RowState decode_state(const Use& use, int first) {
  RowState state;
  state.status = static_cast<MessageStatus>(use.int64(first));
  state.attempts = static_cast<int>(use.int64(first + 1));
  state.error = use.text(first + 2);
  state.failure_reason = static_cast<FailureReason>(use.int64(first + 3));
  state.instance_id = use.optional_uuid(first + 4);
  if (auto v = use.optional_int64(first + 5)) state.lease_expiry = from_micros(*v);
  if (auto v = use.optional_int64(first + 6)) state.scheduled_for = from_micros(*v);
  if (auto v = use.optional_int64(first + 7)) state.processed_at = from_micros(*v);
  if (auto v = use.optional_int64(first + 8)) state.published_at = from_micros(*v);
  state.created_at = from_micros(use.int64(first + 9));
  return state;
}

const std::string kRecentOutbox =
    "SELECT message_id, destination, message_type, event_data, stream_id, is_event, status, "
    "attempts, error, failure_reason, instance_id, lease_expiry, scheduled_for, processed_at, "
    "published_at, created_at FROM wh_outbox ORDER BY created_at DESC, message_id DESC LIMIT ?1";
const std::string kRecentInbox =
    "SELECT message_id, handler_name, message_type, event_data, stream_id, is_event, status, "
    "attempts, error, failure_reason, instance_id, lease_expiry, scheduled_for, processed_at, "
    "NULL, received_at FROM wh_inbox ORDER BY received_at DESC, message_id DESC LIMIT ?1";
const std::string kRecentEvents =
    "SELECT event_id, stream_id, event_type, event_data, metadata, version, created_at "
    "FROM wh_event_store ORDER BY created_at DESC, event_id DESC LIMIT ?1";
const std::string kStreamEvents =
    "SELECT event_id, stream_id, event_type, event_data, metadata, version, created_at "
    "FROM wh_event_store WHERE stream_id = ?1 ORDER BY version";
const std::string kRecentPerspectiveEvents =
    "SELECT event_work_id, stream_id, perspective_name, event_id, instance_id, lease_expiry, "
    "status FROM wh_perspective_events ORDER BY created_at DESC, event_work_id DESC LIMIT ?1";
const std::string kRecentInvocations =
    "SELECT message_id, receptor_id, service_name, perspective, stage, completed_at, duration_us "
    "FROM wh_receptor_invocations ORDER BY completed_at DESC, message_id DESC LIMIT ?1";

// The tables that keep dead letters: those with a dead_lettered_at column.
const std::string kDeadLetterTables =
    "SELECT m.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS c "
    "WHERE m.type = 'table' AND m.name LIKE 'wh\\_%' ESCAPE '\\' "
    "AND c.name = 'dead_lettered_at' ORDER BY m.name";

StoredEvent decode_event(const Use& use) {
  return {MessageId::from_trusted(use.uuid(0)),
          use.uuid(1),
          use.text(2),
          use.text(3),
          use.text(4),
          use.int64(5),
          from_micros(use.int64(6))};
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> SqliteStoreInspector::open(
    const std::string& path) {
  // Checked before SQLite sees the path: a read-only open never creates a file, but these give
  // clearer messages than "unable to open database file".
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return absl::NotFoundError(fmt::format("'{}': no such file", path));
  }
  if (error) {
    return absl::InvalidArgumentError(fmt::format("'{}': {}", path, error.message()));
  }
  if (status.type() == std::filesystem::file_type::directory) {
    return absl::InvalidArgumentError(fmt::format("'{}' is a directory, not a store file", path));
  }
  if (status.type() != std::filesystem::file_type::regular) {
    return absl::InvalidArgumentError(fmt::format("'{}' is not a regular file", path));
  }

  // A store with a -wal file may have a live writer: share its locks and -shm. Without one the
  // file holds everything (a closed store checkpoints and removes its WAL): read it immutable,
  // so not even -wal/-shm side files appear next to it.
  const bool live = std::filesystem::exists(path + "-wal", error);
  absl::StatusOr<std::unique_ptr<Connection>> connection =
      Connection::open_read_only(path, /*immutable=*/!live);
  if (!connection.ok()) return connection.status();
  auto impl = std::make_unique<Impl>();
  impl->connection = *std::move(connection);

  // The first read tells a non-SQLite file apart (SQLITE_NOTADB).
  {
    absl::StatusOr<sqlite3_stmt*> stmt =
        impl->connection->prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
    if (!stmt.ok()) {
      return absl::DataLossError(fmt::format("'{}' is not an SQLite database", path));
    }
    Use use(*impl->connection, *stmt);
    while (true) {
      absl::StatusOr<bool> row = use.step();
      if (!row.ok()) {
        return absl::DataLossError(fmt::format("'{}' is not an SQLite database", path));
      }
      if (!*row) break;
      impl->tables.insert(use.text(0));
    }
  }
  if (!impl->has("wh_schema_version") || !impl->has("wh_outbox")) {
    return absl::FailedPreconditionError(
        fmt::format("'{}' is an SQLite database but not a Whizbang store (it has {} tables and no "
                    "{})",
                    path, impl->tables.size(),
                    impl->has("wh_schema_version") ? "wh_outbox" : "wh_schema_version"));
  }
  {
    absl::StatusOr<sqlite3_stmt*> stmt =
        impl->connection->prepare("SELECT COALESCE(MAX(version), 0) FROM wh_schema_version");
    if (!stmt.ok()) return stmt.status();
    Use use(*impl->connection, *stmt);
    absl::StatusOr<bool> row = use.step();
    if (!row.ok()) return row.status();
    impl->schema_version = *row ? static_cast<int>(use.int64(0)) : 0;
  }
  return std::unique_ptr<SqliteStoreInspector>(new SqliteStoreInspector(std::move(impl)));
}

SqliteStoreInspector::SqliteStoreInspector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteStoreInspector::~SqliteStoreInspector() = default;

const std::string& SqliteStoreInspector::path() const { return impl_->connection->path(); }
int SqliteStoreInspector::schema_version() const { return impl_->schema_version; }

absl::StatusOr<StoreCounts> SqliteStoreInspector::counts() {
  StoreCounts counts;
  const std::pair<const char*, std::int64_t*> tables[] = {
      {"wh_outbox", &counts.outbox},
      {"wh_outbox_tombstones", &counts.outbox_tombstones},
      {"wh_inbox", &counts.inbox},
      {"wh_event_store", &counts.event_store},
      {"wh_perspective_events", &counts.perspective_events},
      {"wh_receptor_invocations", &counts.receptor_invocations},
  };
  for (const auto& [table, count] : tables) {
    absl::StatusOr<std::int64_t> value = impl_->count(table);
    if (!value.ok()) return value.status();
    *count = *value;
  }
  if (!impl_->has_dead_letters()) return counts;
  // Every table with a dead_lettered_at column, so tables a later migration adds are counted too.
  absl::StatusOr<std::vector<std::string>> keeping = impl_->rows<std::string>(
      "wh_outbox", kDeadLetterTables, -1, [](const Use& use) { return use.text(0); });
  if (!keeping.ok()) return keeping.status();
  for (const std::string& table : *keeping) {
    absl::StatusOr<std::int64_t> value = impl_->count(table, "dead_lettered_at IS NOT NULL");
    if (!value.ok()) return value.status();
    counts.dead_lettered[table] = *value;
  }
  return counts;
}

absl::StatusOr<std::vector<OutboxRow>> SqliteStoreInspector::recent_outbox(int limit) {
  return impl_->rows<OutboxRow>("wh_outbox", kRecentOutbox, limit, [](const Use& use) {
    OutboxRow row;
    row.message.message_id = MessageId::from_trusted(use.uuid(0));
    row.message.destination = use.optional_text(1);
    row.message.message_type = use.text(2);
    row.message.envelope_json = use.text(3);
    row.message.stream_id = use.optional_uuid(4);
    row.message.is_event = use.int64(5) != 0;
    row.state = decode_state(use, 6);
    return row;
  });
}

absl::StatusOr<std::vector<InboxRow>> SqliteStoreInspector::recent_inbox(int limit) {
  return impl_->rows<InboxRow>("wh_inbox", kRecentInbox, limit, [](const Use& use) {
    InboxRow row;
    row.message.message_id = MessageId::from_trusted(use.uuid(0));
    row.message.handler_name = use.text(1);
    row.message.message_type = use.text(2);
    row.message.envelope_json = use.text(3);
    row.message.stream_id = use.optional_uuid(4);
    row.message.is_event = use.int64(5) != 0;
    row.state = decode_state(use, 6);
    return row;
  });
}

absl::StatusOr<std::vector<StoredEvent>> SqliteStoreInspector::recent_events(int limit) {
  return impl_->rows<StoredEvent>("wh_event_store", kRecentEvents, limit, decode_event);
}

absl::StatusOr<std::vector<PerspectiveEventRow>> SqliteStoreInspector::recent_perspective_events(
    int limit) {
  return impl_->rows<PerspectiveEventRow>(
      "wh_perspective_events", kRecentPerspectiveEvents, limit, [](const Use& use) {
        PerspectiveEventRow row;
        row.event_work_id = MessageId::from_trusted(use.uuid(0));
        row.stream_id = use.uuid(1);
        row.perspective_name = use.text(2);
        row.event_id = MessageId::from_trusted(use.uuid(3));
        row.instance_id = use.optional_uuid(4);
        if (auto v = use.optional_int64(5)) row.lease_expiry = from_micros(*v);
        row.status = static_cast<int>(use.int64(6));
        return row;
      });
}

absl::StatusOr<std::vector<StoredReceptorInvocation>>
SqliteStoreInspector::recent_receptor_invocations(int limit) {
  return impl_->rows<StoredReceptorInvocation>(
      "wh_receptor_invocations", kRecentInvocations, limit, [](const Use& use) {
        StoredReceptorInvocation row;
        row.message_id = MessageId::from_trusted(use.uuid(0));
        row.record.receptor_id = use.text(1);
        row.record.service_name = use.text(2);
        row.record.perspective = use.text(3);
        row.record.stage = static_cast<Stage>(use.int64(4));
        row.record.completed_at = from_micros(use.int64(5));
        row.record.duration = std::chrono::microseconds(use.int64(6));
        return row;
      });
}

absl::StatusOr<std::vector<StoredEvent>> SqliteStoreInspector::read_stream(const Uuid& stream_id) {
  std::vector<StoredEvent> events;
  if (!impl_->has("wh_event_store")) return events;
  absl::StatusOr<sqlite3_stmt*> stmt = impl_->connection->prepare(kStreamEvents);
  if (!stmt.ok()) return stmt.status();
  Use use(*impl_->connection, *stmt);
  use.bind_uuid(1, stream_id);
  while (true) {
    absl::StatusOr<bool> row = use.step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    events.push_back(decode_event(use));
  }
  return events;
}

absl::StatusOr<std::vector<DeadLetter>> SqliteStoreInspector::dead_letters(int limit) {
  if (!impl_->has_dead_letters()) return std::vector<DeadLetter>();
  // The columns kDeadLetters documents, decoded as SqliteWorkStore::dead_letters decodes them.
  absl::StatusOr<std::vector<DeadLetter>> letters =
      impl_->rows<DeadLetter>("wh_outbox", sqlite::sql::kDeadLetters, limit, [](const Use& use) {
        DeadLetter letter;
        letter.source = static_cast<DeadLetterSource>(use.int64(0));
        letter.id = MessageId::from_trusted(use.uuid(1));
        letter.message_type = use.text(2);
        letter.target = use.text(3);
        letter.stream_id = use.optional_uuid(4);
        letter.attempts = static_cast<int>(use.int64(5));
        letter.error = use.text(6);
        letter.reason = static_cast<FailureReason>(use.int64(7));
        letter.dead_lettered_at = from_micros(use.int64(8));
        return letter;
      });
  // kDeadLetters reads the current schema: a store between version 5 and it may lack a table.
  if (!letters.ok() && impl_->schema_version < sqlite::latest_schema_version()) {
    return absl::FailedPreconditionError(
        fmt::format("'{}' has schema version {}, older than this runtime's {}: its dead letters "
                    "can be listed once a store opens (and migrates) it ({})",
                    path(), impl_->schema_version, sqlite::latest_schema_version(),
                    std::string(letters.status().message())));
  }
  return letters;
}

}  // namespace whizbang
