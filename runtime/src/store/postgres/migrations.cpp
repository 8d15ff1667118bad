#include "postgres/migrations.hpp"

#include <array>

#include "fmt/format.h"
#include "postgres/sql/dead_letter_sql.hpp"
#include "postgres/sql/rebuild_sql.hpp"

namespace whizbang::postgres {
namespace {

// Keys are uuid (UUIDv7: time-ordered, so inserts append to the index), times are bigint
// microseconds since the Unix epoch, JSON is text. The tables claims update often keep free
// space in their pages (fillfactor 70), so a lease update stays on its page (a HOT update) and
// writes about half the WAL. wh_outbox_ids is the outbox's permanent dedup
// (store/postgres/sql.hpp).
constexpr std::string_view kV1 = R"sql(
CREATE TABLE wh_outbox (
  message_id uuid PRIMARY KEY,
  destination text,
  message_type text NOT NULL,
  event_data text NOT NULL,
  scope text,
  stream_id uuid,
  partition_number integer,
  is_event boolean NOT NULL DEFAULT false,
  status integer NOT NULL DEFAULT 1,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  instance_id uuid,
  lease_expiry bigint,
  failure_reason integer NOT NULL DEFAULT 99,
  scheduled_for bigint,
  created_at bigint NOT NULL,
  published_at bigint,
  processed_at bigint,
  dead_lettered_at bigint
) WITH (fillfactor = 70);
CREATE INDEX wh_outbox_stream ON wh_outbox (stream_id, message_id);
CREATE TABLE wh_outbox_ids (
  message_id uuid PRIMARY KEY,
  stored_at bigint NOT NULL,
  published_at bigint
);
-- Partial: a new id (not yet published) costs no entry here; the purge reads published ids.
CREATE INDEX wh_outbox_ids_published_at ON wh_outbox_ids (published_at)
  WHERE published_at IS NOT NULL;
CREATE TABLE wh_inbox (
  message_id uuid PRIMARY KEY,
  handler_name text NOT NULL,
  message_type text NOT NULL,
  event_data text NOT NULL,
  scope text,
  stream_id uuid,
  partition_number integer,
  is_event boolean NOT NULL DEFAULT false,
  status integer NOT NULL DEFAULT 1,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  instance_id uuid,
  lease_expiry bigint,
  failure_reason integer NOT NULL DEFAULT 99,
  scheduled_for bigint,
  processed_at bigint,
  received_at bigint NOT NULL,
  source_service_id uuid,
  dead_lettered_at bigint
) WITH (fillfactor = 70);
CREATE INDEX wh_inbox_stream ON wh_inbox (stream_id, message_id);
CREATE TABLE wh_message_deduplication (
  message_id uuid PRIMARY KEY,
  first_seen_at bigint NOT NULL
);
CREATE INDEX wh_message_deduplication_first_seen_at ON wh_message_deduplication (first_seen_at);
CREATE TABLE wh_event_store (
  event_id uuid PRIMARY KEY,
  stream_id uuid NOT NULL,
  aggregate_id uuid NOT NULL,
  aggregate_type text NOT NULL,
  event_type text NOT NULL,
  event_data text NOT NULL,
  metadata text NOT NULL,
  scope text,
  version bigint NOT NULL,
  created_at bigint NOT NULL,
  UNIQUE (stream_id, version)
);
CREATE TABLE wh_perspective_events (
  event_work_id uuid PRIMARY KEY,
  stream_id uuid NOT NULL,
  perspective_name text NOT NULL,
  event_id uuid NOT NULL,
  instance_id uuid,
  lease_expiry bigint,
  status integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  created_at bigint NOT NULL,
  claimed_at bigint,
  processed_at bigint,
  scheduled_for bigint,
  failure_reason integer NOT NULL DEFAULT 99,
  dead_lettered_at bigint,
  UNIQUE (stream_id, perspective_name, event_id)
) WITH (fillfactor = 70);
CREATE INDEX wh_perspective_events_event_id ON wh_perspective_events (event_id);
CREATE TABLE wh_message_associations (
  message_type text NOT NULL,
  association_type text NOT NULL,
  target_name text NOT NULL,
  PRIMARY KEY (message_type, association_type, target_name)
);
CREATE TABLE wh_service_instances (
  instance_id uuid PRIMARY KEY,
  service_name text NOT NULL,
  host_name text NOT NULL,
  process_id bigint NOT NULL,
  started_at bigint NOT NULL,
  last_heartbeat_at bigint NOT NULL
);
CREATE TABLE wh_receptor_invocations (
  message_id uuid NOT NULL,
  receptor_id text NOT NULL,
  service_name text NOT NULL,
  perspective text NOT NULL,
  stage integer NOT NULL,
  completed_at bigint NOT NULL,
  duration_us bigint NOT NULL
);
-- Service names compare case-insensitively, as in the SQLite backend (COLLATE NOCASE).
CREATE UNIQUE INDEX wh_receptor_invocations_key
  ON wh_receptor_invocations (message_id, receptor_id, lower(service_name), perspective);
CREATE INDEX wh_receptor_invocations_completed_at ON wh_receptor_invocations (completed_at);
CREATE TABLE wh_perspective_models (
  perspective_name text NOT NULL,
  stream_id uuid NOT NULL,
  model_data text NOT NULL,
  last_event_id uuid NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (perspective_name, stream_id)
);
CREATE TABLE wh_lifecycle_completions (
  event_id uuid PRIMARY KEY,
  stream_id uuid NOT NULL,
  instance_id uuid,
  lease_expiry bigint,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  failure_reason integer NOT NULL DEFAULT 99,
  scheduled_for bigint,
  created_at bigint NOT NULL,
  dead_lettered_at bigint
);
CREATE TABLE wh_detached_work (
  work_id uuid PRIMARY KEY,
  message_id uuid NOT NULL,
  message_type text NOT NULL,
  receptor_id text NOT NULL,
  stage integer NOT NULL,
  perspective text NOT NULL,
  envelope text NOT NULL,
  instance_id uuid,
  lease_expiry bigint,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  failure_reason integer NOT NULL DEFAULT 99,
  scheduled_for bigint,
  created_at bigint NOT NULL,
  dead_lettered_at bigint
);
)sql";

// An outbox id's retention counts from when it was stored, and never runs out while its row
// waits (RetentionOptions). A publication then only deletes its row: stamping the id's row in
// wh_outbox_ids wrote a new row version and two index entries per message (a 100-row
// publication: about 0.5 ms of the server's time). The purge finds old ids through a BRIN index
// on stored_at: ids are stored in time order, so block ranges summarize it well, and a new id
// costs the index nothing until a vacuum summarizes its range.
constexpr std::string_view kV2 = R"sql(
DROP INDEX wh_outbox_ids_published_at;
ALTER TABLE wh_outbox_ids DROP COLUMN published_at;
CREATE INDEX wh_outbox_ids_stored_at ON wh_outbox_ids USING brin (stored_at);
)sql";

// A stream's perspective events apply in the order its events were appended: their versions.
// Event ids do not follow it (an id derived from a handling shares its source's time).
constexpr std::string_view kV3 = R"sql(
ALTER TABLE wh_perspective_events ADD COLUMN stream_version bigint;
UPDATE wh_perspective_events pe SET stream_version = es.version FROM wh_event_store es
  WHERE es.event_id = pe.event_id;
UPDATE wh_perspective_events SET stream_version = 0 WHERE stream_version IS NULL;
ALTER TABLE wh_perspective_events ALTER COLUMN stream_version SET NOT NULL;
)sql";

// Keyed dispatches (a send or publish with an idempotency key): one row per dispatch, purged by
// age like the inbox's deduplication ids.
constexpr std::string_view kV4 = R"sql(
CREATE TABLE wh_dispatch_keys (
  message_id uuid PRIMARY KEY,
  first_seen_at bigint NOT NULL
);
CREATE INDEX wh_dispatch_keys_first_seen_at ON wh_dispatch_keys (first_seen_at);
)sql";

// Rewind detection: per (perspective, stream), the furthest event applied in perspective order
// (occurred-at, then stream version).
constexpr std::string_view kV6 = R"sql(
CREATE TABLE wh_perspective_cursors (
  perspective_name text NOT NULL,
  stream_id uuid NOT NULL,
  last_event_id uuid NOT NULL,
  last_stream_version bigint NOT NULL,
  last_occurred_at bigint NOT NULL,
  rewind_count bigint NOT NULL DEFAULT 0,
  updated_at bigint NOT NULL,
  PRIMARY KEY (perspective_name, stream_id)
);
)sql";

// Perspective models as jsonb (`model`), so users query and index them with SQL
// (docs/guide/07-perspectives.md). A generated column: the runtime keeps reading and writing the
// model's own text (jsonb would reorder its keys and respace it), and PostgreSQL derives the jsonb
// on every write. Stored models were written by the models' own codecs: valid JSON.
constexpr std::string_view kV7 = R"sql(
ALTER TABLE wh_perspective_models
  ADD COLUMN model jsonb GENERATED ALWAYS AS (model_data::jsonb) STORED;
)sql";

// The retention purge of refused deliveries (docs/guide/11-failures.md) reads only them, not the
// whole inbox. The literal is kRefusedDeliveryHandler (store_rows.hpp).
constexpr std::string_view kV8 = R"sql(
CREATE INDEX wh_inbox_refused_dead_lettered_at ON wh_inbox (dead_lettered_at)
  WHERE handler_name = 'refused delivery';
)sql";

// The stream indexes hold only rows of a stream. A statement that finds rows by id alone (a
// completion, a failure) can then only use the key: a planner that believes the table empty
// (last vacuumed between two bursts, as a work table usually is) found the stream index, keyed
// by stream first, as cheap as the key, and walked all of it once per row (a claim of 10,000
// rows: 3.3 s).
//
// The work tables are vacuumed after 10,000 dead rows, whatever their size, and unthrottled. A
// claim walks its index in claim order, and the rows handled before it (deleted) lead that
// order until a vacuum: with the defaults (a fifth of the table, throttled) a drained million
// left 2.3 million dead entries in front of the outbox claim (its walk: 32 ms, 0.4 ms after).
constexpr std::string_view kV10 = R"sql(
DROP INDEX wh_outbox_stream;
CREATE INDEX wh_outbox_stream ON wh_outbox (stream_id, message_id) WHERE stream_id IS NOT NULL;
DROP INDEX wh_inbox_stream;
CREATE INDEX wh_inbox_stream ON wh_inbox (stream_id, message_id) WHERE stream_id IS NOT NULL;
ALTER TABLE wh_outbox SET (autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE wh_inbox SET (autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE wh_perspective_events SET (autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_cost_delay = 0);
)sql";

// The stage-work tables are claimed in key order too (lifecycle completions by event, detached
// work by id, both time-ordered), so the rows handled before a claim lead its walk until a
// vacuum: they are vacuumed as the other work tables are (migration 10), and their claims' lease
// updates get the same room on their pages.
constexpr std::string_view kV11 = R"sql(
ALTER TABLE wh_lifecycle_completions SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE wh_detached_work SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_cost_delay = 0);
)sql";

constexpr std::array<Migration, 11> kMigrations{{
    {1, "outbox, inbox, event store, perspectives, invocations, lifecycle, detached work", kV1},
    {2, "outbox ids kept by their age (a publication writes nothing to them)", kV2},
    {3, "perspective events ordered by their event's version", kV3},
    {4, "keyed dispatches", kV4},
    {5, "perspective rebuilds and versions", sql::kRebuildSchema},
    {6, "perspective cursors", kV6},
    {7, "perspective models as jsonb (model)", kV7},
    {8, "refused deliveries indexed for their purge", kV8},
    {9, "discarded dead letters kept with their reason", sql::dead_letters::kDiscardedSchema},
    {10, "stream indexes of stream rows only; work tables vacuumed after 10,000 dead rows", kV10},
    {11, "stage-work tables vacuumed after 10,000 dead rows", kV11},
}};

// One advisory lock key for every migration of every store in the database.
constexpr std::string_view kMigrationLock = "SELECT pg_advisory_xact_lock(2003200520)";

absl::StatusOr<std::int64_t> scalar(Connection& connection, const std::string& sql) {
  Query query(connection, sql);
  absl::StatusOr<bool> row = query.step();
  if (!row.ok()) return row.status();
  return *row ? query.int64(0) : 0;
}

// A search_path none of whose schemas exists yet (a service's own schema on a shared database,
// named in its conninfo): the first schema it names is created, as the tables are. "$user" is
// skipped; parse_ident and %I quote the name as the setting spelled it.
absl::Status create_missing_schema(Connection& connection) {
  Query query(connection,
              "SELECT format('CREATE SCHEMA IF NOT EXISTS %I', (parse_ident(btrim(name)))[1]) "
              "FROM unnest(string_to_array(current_setting('search_path'), ',')) WITH ORDINALITY "
              "AS path(name, n) WHERE current_schema() IS NULL AND btrim(name) NOT IN "
              "('\"$user\"', '$user', '') ORDER BY n LIMIT 1");
  absl::StatusOr<bool> missing = query.step();
  if (!missing.ok()) return missing.status();
  if (!*missing) return absl::OkStatus();
  return connection.exec(query.text(0));
}

absl::StatusOr<int> migrate_locked(Connection& connection) {
  if (absl::Status status = connection.exec(std::string(kMigrationLock)); !status.ok()) {
    return status;
  }
  if (absl::Status status = create_missing_schema(connection); !status.ok()) return status;
  absl::StatusOr<std::int64_t> has_version_table =
      scalar(connection,
             "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() "
             "AND tablename = 'wh_schema_version'");
  if (!has_version_table.ok()) return has_version_table.status();
  if (*has_version_table == 0) {
    absl::StatusOr<std::int64_t> whizbang_tables =
        scalar(connection,
               "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() "
               "AND tablename LIKE 'wh\\_%'");
    if (!whizbang_tables.ok()) return whizbang_tables.status();
    if (*whizbang_tables > 0) {
      return absl::FailedPreconditionError(fmt::format(
          "{}: the schema has {} wh_ tables but no wh_schema_version: not a Whizbang store",
          connection.describe(), *whizbang_tables));
    }
    absl::Status status = connection.exec(
        "CREATE TABLE wh_schema_version (version integer PRIMARY KEY, name text NOT NULL, "
        "applied_at bigint NOT NULL)");
    if (!status.ok()) return status;
  }
  absl::StatusOr<std::int64_t> current =
      scalar(connection, "SELECT COALESCE(MAX(version), 0) FROM wh_schema_version");
  if (!current.ok()) return current.status();
  if (*current > latest_schema_version()) {
    return absl::FailedPreconditionError(
        fmt::format("{} has schema version {}, newer than this runtime's {}", connection.describe(),
                    *current, latest_schema_version()));
  }
  for (const Migration& migration : kMigrations) {
    if (migration.version <= *current) continue;
    absl::Status status = connection.exec(std::string(migration.sql));
    if (status.ok()) {
      Query record(connection,
                   "INSERT INTO wh_schema_version (version, name, applied_at) VALUES ($1::integer, "
                   "$2::text, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)");
      record.bind_int(1, migration.version);
      record.bind_text(2, migration.name);
      status = record.run();
    }
    if (!status.ok()) {
      return absl::InternalError(fmt::format("migration {} ({}) failed: {}", migration.version,
                                             migration.name, std::string(status.message())));
    }
  }
  return latest_schema_version();
}

}  // namespace

std::span<const Migration> migrations() { return kMigrations; }
int latest_schema_version() { return kMigrations.back().version; }

absl::StatusOr<int> migrate(Connection& connection) {
  if (absl::Status status = connection.exec("BEGIN"); !status.ok()) return status;
  absl::StatusOr<int> version = migrate_locked(connection);
  absl::Status status = version.ok() ? connection.exec("COMMIT") : version.status();
  if (!status.ok()) {
    (void)connection.exec("ROLLBACK");
    return status;
  }
  return version;
}

}  // namespace whizbang::postgres
