#include "sqlite/migrations.hpp"

#include <array>

#include "fmt/format.h"
#include "sqlite/sql/dead_letter_sql.hpp"
#include "sqlite/sql/rebuild_sql.hpp"

namespace whizbang::sqlite {
namespace {

// Keys are 16-byte BLOBs (UUIDv7: time-ordered, so inserts append to the B-tree), times are
// integer microseconds since the Unix epoch, JSON is TEXT.
constexpr std::string_view kV1 = R"sql(
CREATE TABLE wh_outbox (
  message_id BLOB PRIMARY KEY NOT NULL,
  destination TEXT,
  message_type TEXT NOT NULL,
  event_data TEXT NOT NULL,
  scope TEXT,
  stream_id BLOB,
  partition_number INTEGER,
  is_event INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT 1,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  instance_id BLOB,
  lease_expiry INTEGER,
  failure_reason INTEGER NOT NULL DEFAULT 99,
  scheduled_for INTEGER,
  created_at INTEGER NOT NULL,
  published_at INTEGER,
  processed_at INTEGER
) WITHOUT ROWID;
CREATE TABLE wh_inbox (
  message_id BLOB PRIMARY KEY NOT NULL,
  handler_name TEXT NOT NULL,
  message_type TEXT NOT NULL,
  event_data TEXT NOT NULL,
  scope TEXT,
  stream_id BLOB,
  partition_number INTEGER,
  is_event INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT 1,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  instance_id BLOB,
  lease_expiry INTEGER,
  failure_reason INTEGER NOT NULL DEFAULT 99,
  scheduled_for INTEGER,
  processed_at INTEGER,
  received_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE wh_message_deduplication (
  message_id BLOB PRIMARY KEY NOT NULL,
  first_seen_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE wh_event_store (
  event_id BLOB PRIMARY KEY NOT NULL,
  stream_id BLOB NOT NULL,
  aggregate_id BLOB NOT NULL,
  aggregate_type TEXT NOT NULL,
  event_type TEXT NOT NULL,
  event_data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  scope TEXT,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (stream_id, version)
) WITHOUT ROWID;
CREATE TABLE wh_perspective_events (
  event_work_id BLOB PRIMARY KEY NOT NULL,
  stream_id BLOB NOT NULL,
  perspective_name TEXT NOT NULL,
  event_id BLOB NOT NULL,
  instance_id BLOB,
  lease_expiry INTEGER,
  status INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  created_at INTEGER NOT NULL,
  claimed_at INTEGER,
  processed_at INTEGER,
  scheduled_for INTEGER,
  failure_reason INTEGER NOT NULL DEFAULT 99,
  UNIQUE (stream_id, perspective_name, event_id)
) WITHOUT ROWID;
CREATE TABLE wh_message_associations (
  message_type TEXT NOT NULL,
  association_type TEXT NOT NULL,
  target_name TEXT NOT NULL,
  PRIMARY KEY (message_type, association_type, target_name)
) WITHOUT ROWID;
CREATE TABLE wh_service_instances (
  instance_id BLOB PRIMARY KEY NOT NULL,
  service_name TEXT NOT NULL,
  host_name TEXT NOT NULL,
  process_id INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  last_heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;
)sql";

// Mirrors the reference's migration 146: the publishing service's id on inbox rows.
constexpr std::string_view kV2 = R"sql(
ALTER TABLE wh_inbox ADD COLUMN source_service_id BLOB;
)sql";

// Published outbox rows are deleted; their ids stay here so a re-emission after publication is
// still a counted no-op rather than a republish. And the exactly-once guardrail's records.
constexpr std::string_view kV3 = R"sql(
CREATE TABLE wh_outbox_tombstones (
  message_id BLOB PRIMARY KEY NOT NULL,
  published_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE wh_receptor_invocations (
  message_id BLOB NOT NULL,
  receptor_id TEXT NOT NULL,
  service_name TEXT NOT NULL,
  perspective TEXT NOT NULL,
  stage INTEGER NOT NULL,
  completed_at INTEGER NOT NULL,
  duration_us INTEGER NOT NULL,
  PRIMARY KEY (message_id, receptor_id, service_name COLLATE NOCASE, perspective)
) WITHOUT ROWID;
)sql";

// Perspective read models, one row per (perspective, stream), and the WhenAll check's index
// ("does any perspective event of this event remain?").
constexpr std::string_view kV4 = R"sql(
CREATE TABLE wh_perspective_models (
  perspective_name TEXT NOT NULL,
  stream_id BLOB NOT NULL,
  model_data TEXT NOT NULL,
  last_event_id BLOB NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (perspective_name, stream_id)
) WITHOUT ROWID;
CREATE INDEX wh_perspective_events_event_id ON wh_perspective_events (event_id);
)sql";

// Failures and recovery: dead letters (kept, never offered again, requeued by an operator), the
// indexes stream-ordered claims read, lifecycle completions — an event whose perspectives all
// completed, waiting for PostAllPerspectives and PostLifecycle to succeed — and detached work, a
// Detached stage scheduled on an executor and not yet run. Rows quarantined by earlier versions
// (processed, failed as unreadable) become dead letters; the purge reads by age.
constexpr std::string_view kV5 = R"sql(
ALTER TABLE wh_outbox ADD COLUMN dead_lettered_at INTEGER;
ALTER TABLE wh_inbox ADD COLUMN dead_lettered_at INTEGER;
ALTER TABLE wh_perspective_events ADD COLUMN dead_lettered_at INTEGER;
UPDATE wh_outbox SET dead_lettered_at = processed_at, processed_at = NULL
  WHERE processed_at IS NOT NULL AND (status & 32768) <> 0 AND failure_reason = 3
    AND published_at IS NULL;
UPDATE wh_inbox SET dead_lettered_at = processed_at, processed_at = NULL
  WHERE processed_at IS NOT NULL AND (status & 32768) <> 0 AND failure_reason = 3;
CREATE INDEX wh_outbox_stream ON wh_outbox (stream_id, message_id);
CREATE INDEX wh_inbox_stream ON wh_inbox (stream_id, message_id);
CREATE TABLE wh_lifecycle_completions (
  event_id BLOB PRIMARY KEY NOT NULL,
  stream_id BLOB NOT NULL,
  instance_id BLOB,
  lease_expiry INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  failure_reason INTEGER NOT NULL DEFAULT 99,
  scheduled_for INTEGER,
  created_at INTEGER NOT NULL,
  dead_lettered_at INTEGER
) WITHOUT ROWID;
CREATE TABLE wh_detached_work (
  work_id BLOB PRIMARY KEY NOT NULL,
  message_id BLOB NOT NULL,
  message_type TEXT NOT NULL,
  receptor_id TEXT NOT NULL,
  stage INTEGER NOT NULL,
  perspective TEXT NOT NULL,
  envelope TEXT NOT NULL,
  instance_id BLOB,
  lease_expiry INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  failure_reason INTEGER NOT NULL DEFAULT 99,
  scheduled_for INTEGER,
  created_at INTEGER NOT NULL,
  dead_lettered_at INTEGER
) WITHOUT ROWID;
CREATE INDEX wh_receptor_invocations_completed_at ON wh_receptor_invocations (completed_at);
CREATE INDEX wh_message_deduplication_first_seen_at ON wh_message_deduplication (first_seen_at);
CREATE INDEX wh_outbox_tombstones_published_at ON wh_outbox_tombstones (published_at);
)sql";

// A tombstone's age counts from when its id was stored, as an outbox id's retention does
// (RetentionOptions): the column says so. A tombstone written before keeps its publication time,
// a little later than its storing: it is kept a little longer.
constexpr std::string_view kV6 = R"sql(
DROP INDEX wh_outbox_tombstones_published_at;
ALTER TABLE wh_outbox_tombstones RENAME COLUMN published_at TO stored_at;
CREATE INDEX wh_outbox_tombstones_stored_at ON wh_outbox_tombstones (stored_at);
)sql";

// A stream's perspective events apply in the order its events were appended: their versions.
// Event ids do not follow it (an id derived from a handling shares its source's time).
constexpr std::string_view kV7 = R"sql(
ALTER TABLE wh_perspective_events ADD COLUMN stream_version INTEGER NOT NULL DEFAULT 0;
UPDATE wh_perspective_events SET stream_version = COALESCE((SELECT es.version FROM wh_event_store
  es WHERE es.event_id = wh_perspective_events.event_id), 0);
)sql";

// Keyed dispatches (a send or publish with an idempotency key): one row per dispatch, purged by
// age like the inbox's deduplication ids.
constexpr std::string_view kV8 = R"sql(
CREATE TABLE wh_dispatch_keys (
  message_id BLOB PRIMARY KEY NOT NULL,
  first_seen_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX wh_dispatch_keys_first_seen_at ON wh_dispatch_keys (first_seen_at);
)sql";

// Rewind detection: per (perspective, stream), the furthest event applied in perspective order
// (occurred-at, then stream version).
constexpr std::string_view kV10 = R"sql(
CREATE TABLE wh_perspective_cursors (
  perspective_name TEXT NOT NULL,
  stream_id BLOB NOT NULL,
  last_event_id BLOB NOT NULL,
  last_stream_version INTEGER NOT NULL,
  last_occurred_at INTEGER NOT NULL,
  rewind_count INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (perspective_name, stream_id)
) WITHOUT ROWID;
)sql";

// The retention purge of refused deliveries (docs/guide/11-failures.md) reads only them: without
// it, each purge scanned the whole inbox, every pending row included, holding the write lock.
// The literal is kRefusedDeliveryHandler (store_rows.hpp): a partial index serves a query whose
// WHERE names the same value.
constexpr std::string_view kV11 = R"sql(
CREATE INDEX wh_inbox_refused_dead_lettered_at ON wh_inbox (dead_lettered_at)
  WHERE handler_name = 'refused delivery';
)sql";

constexpr std::array<Migration, 12> kMigrations{{
    {1, "core tables", kV1},
    {2, "inbox source_service_id", kV2},
    {3, "outbox tombstones, receptor invocations", kV3},
    {4, "perspective models", kV4},
    {5, "dead letters, stream order, lifecycle completions, detached work", kV5},
    {6, "outbox tombstones kept by the age of their id", kV6},
    {7, "perspective events ordered by their event's version", kV7},
    {8, "keyed dispatches", kV8},
    {9, "perspective rebuilds and versions", sql::kRebuildSchema},
    {10, "perspective cursors", kV10},
    {11, "refused deliveries indexed for their purge", kV11},
    {12, "discarded dead letters kept with their reason", sql::dead_letters::kDiscardedSchema},
}};

// The name is bound, not spliced into the SQL: it is prose.
absl::Status record_migration(Connection& connection, const Migration& migration) {
  absl::StatusOr<sqlite3_stmt*> stmt = connection.prepare(
      "INSERT INTO wh_schema_version (version, name, applied_at) VALUES (?1, ?2, "
      "CAST(strftime('%s','now') AS INTEGER) * 1000000)");
  if (!stmt.ok()) return stmt.status();
  Use use(connection, *stmt);
  use.bind_int(1, migration.version);
  use.bind_text(2, migration.name);
  return use.run();
}

absl::StatusOr<std::int64_t> scalar(Connection& connection, const std::string& sql) {
  absl::StatusOr<sqlite3_stmt*> stmt = connection.prepare(sql);
  if (!stmt.ok()) return stmt.status();
  Use use(connection, *stmt);
  absl::StatusOr<bool> row = use.step();
  if (!row.ok()) return row.status();
  return *row ? use.int64(0) : 0;
}

}  // namespace

std::span<const Migration> migrations() { return kMigrations; }
int latest_schema_version() { return kMigrations.back().version; }

namespace {

// The checks and migrations, run inside one write transaction: concurrent first opens of a file
// (several processes of one service) then migrate one after the other, each reading the version
// the previous one left.
absl::Status migrate_locked(Connection& connection) {
  absl::StatusOr<std::int64_t> tables =
      scalar(connection, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  if (!tables.ok()) return tables.status();
  absl::StatusOr<std::int64_t> has_version_table = scalar(
      connection,
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'wh_schema_version'");
  if (!has_version_table.ok()) return has_version_table.status();
  if (*has_version_table == 0 && *tables > 0) {
    return absl::FailedPreconditionError(
        fmt::format("'{}' is an SQLite database but not a Whizbang store (it has {} tables and no "
                    "wh_schema_version)",
                    connection.path(), *tables));
  }
  if (*has_version_table == 0) {
    absl::Status status = connection.exec(
        "CREATE TABLE wh_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at INTEGER NOT NULL)");
    if (!status.ok()) return status;
  }
  absl::StatusOr<std::int64_t> current =
      scalar(connection, "SELECT COALESCE(MAX(version), 0) FROM wh_schema_version");
  if (!current.ok()) return current.status();
  if (*current > latest_schema_version()) {
    return absl::FailedPreconditionError(
        fmt::format("'{}' has schema version {}, newer than this runtime's {}", connection.path(),
                    *current, latest_schema_version()));
  }
  for (const Migration& migration : kMigrations) {
    if (migration.version <= *current) continue;
    absl::Status status = connection.exec(std::string(migration.sql));
    if (status.ok()) status = record_migration(connection, migration);
    if (!status.ok()) {
      return absl::InternalError(fmt::format("migration {} ({}) failed: {}", migration.version,
                                             migration.name, std::string(status.message())));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> migrate(Connection& connection) {
  // The first read tells a non-SQLite file apart (SQLITE_NOTADB).
  absl::StatusOr<std::int64_t> tables =
      scalar(connection, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  if (!tables.ok()) {
    // Busy is another opener's lock, not a sign of the file's format: the caller may retry.
    if (absl::IsUnavailable(tables.status())) return tables.status();
    return absl::DataLossError(fmt::format("'{}' is not an SQLite database: {}", connection.path(),
                                           std::string(tables.status().message())));
  }
  if (absl::Status status = connection.exec("BEGIN IMMEDIATE"); !status.ok()) return status;
  absl::Status status = migrate_locked(connection);
  if (status.ok()) status = connection.exec("COMMIT");
  if (!status.ok()) {
    (void)connection.exec("ROLLBACK");
    return status;
  }
  return latest_schema_version();
}

}  // namespace whizbang::sqlite
