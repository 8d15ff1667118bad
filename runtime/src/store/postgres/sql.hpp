// The SQL of the PostgreSQL backend. Parameters are numbered as in the SQLite backend's
// statements (store/sqlite/sql.hpp), so both stores bind alike; every parameter is cast where it
// is used (connection.hpp). Statements are cache keys (Connection::run): each is one constant.
//
// Where the two backends differ, and why:
// - Outbox dedup goes through one permanent id table, wh_outbox_ids: every emitted id passes
//   its primary key once. (A tombstone checked with NOT EXISTS, as in SQLite, lets a re-emission
//   slip in while a completion's DELETE and tombstone are uncommitted under READ COMMITTED.)
// - Claims lock what they take (FOR UPDATE SKIP LOCKED) and, where stream order matters, run one
//   at a time per table (a transaction-scoped advisory lock), so a claim sees the leases every
//   earlier claim committed.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::postgres::sql {

inline const char* table(WorkSource source) {
  return source == WorkSource::Outbox ? "wh_outbox" : "wh_inbox";
}

// The numbers the SQL writes, spelled from the C++ enums they stand for.
inline std::string number(MessageStatus status) {
  return std::to_string(static_cast<std::uint32_t>(status));
}
inline std::string number(FailureReason reason) { return std::to_string(static_cast<int>(reason)); }

// Advisory lock keys: claims of one table take turns (see above).
enum class ClaimLock : std::int64_t {
  Outbox = 0x57680001,
  Inbox = 0x57680002,
  Perspectives = 0x57680003,
};
inline ClaimLock claim_lock(WorkSource source) {
  return source == WorkSource::Outbox ? ClaimLock::Outbox : ClaimLock::Inbox;
}
// ?1 key
inline const std::string kClaimLock = "SELECT pg_advisory_xact_lock($1::bigint)";

// ---- storage ----------------------------------------------------------------------------------
// A batch of outbox rows in one statement, one array per column (binary_array.hpp): ?1 ids
// ?2 destinations ?3 types ?4 envelopes ?5 scopes ?6 streams ?7 is_event ?8 scheduled for; ?9 now
// ?10 instance ?11 lease expiry. A row is inserted only when its id is new to wh_outbox_ids (the
// first of several rows with one id); returns the ids inserted. Ids are taken in id order, so
// two batches sharing ids lock them in the same order.
inline const std::string kInsertOutbox =
    "WITH input AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], "
    "$5::text[], $6::uuid[], $7::boolean[], $8::bigint[]) WITH ORDINALITY AS i(message_id, "
    "destination, message_type, event_data, scope, stream_id, is_event, scheduled_for, n)), "
    "fresh AS (INSERT INTO wh_outbox_ids (message_id, stored_at) SELECT DISTINCT message_id, "
    "$9::bigint FROM input ORDER BY message_id ON CONFLICT (message_id) DO NOTHING "
    "RETURNING message_id) "
    "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, scope, stream_id, "
    "is_event, status, attempts, instance_id, lease_expiry, created_at, scheduled_for) "
    "SELECT DISTINCT ON (i.message_id) i.message_id, i.destination, i.message_type, "
    "i.event_data, i.scope, i.stream_id, i.is_event, 1, 0, $10::uuid, $11::bigint, $9::bigint, "
    "i.scheduled_for FROM input i JOIN fresh USING (message_id) ORDER BY i.message_id, i.n "
    "RETURNING message_id";
// ?1 id ?2 handler ?3 type ?4 envelope ?5 stream ?6 is_event ?7 source service ?8 now. The row is
// inserted only when its id is new to wh_message_deduplication (permanent inbox dedup).
inline const std::string kInsertInbox =
    "WITH fresh AS (INSERT INTO wh_message_deduplication (message_id, first_seen_at) "
    "VALUES ($1::uuid, $8::bigint) ON CONFLICT (message_id) DO NOTHING RETURNING message_id) "
    "INSERT INTO wh_inbox (message_id, handler_name, message_type, event_data, stream_id, "
    "is_event, status, attempts, source_service_id, received_at) SELECT message_id, $2::text, "
    "$3::text, $4::text, $5::uuid, $6::boolean, 1, 0, $7::uuid, $8::bigint FROM fresh "
    "ON CONFLICT (message_id) DO NOTHING";

// ---- completions and failures -----------------------------------------------------------------
// Completions and failures touch a row only while it is leased to this instance (?2) or to
// nobody: once another instance claimed it after a lapsed lease, it is theirs.
inline constexpr const char* kOwnedBy2 = " AND (instance_id IS NULL OR instance_id = $2::uuid)";

// ?1 ids (a uuid[] literal) ?2 instance. Completed rows are deleted, in one statement per batch;
// a published outbox row's id stays in wh_outbox_ids until the retention purge.
inline std::string delete_rows(WorkSource source) {
  return std::string("DELETE FROM ") + table(source) + " WHERE message_id = ANY($1::uuid[])" +
         kOwnedBy2;
}
// ?1 id ?2 instance ?3 flags ?4 now
inline std::string build_complete_row(WorkSource source) {
  std::string sql = std::string("UPDATE ") + table(source) +
                    " SET status = status | $3::integer, "
                    "processed_at = CASE WHEN $3::integer <> 0 THEN $4::bigint ELSE processed_at "
                    "END, instance_id = NULL, lease_expiry = NULL";
  if (source == WorkSource::Outbox) {
    sql += ", published_at = CASE WHEN ($3::integer & " + number(MessageStatus::Published) +
           ") <> 0 THEN $4::bigint ELSE published_at END";
  }
  return sql + " WHERE message_id = $1::uuid" + kOwnedBy2;
}
// Built once per table: the store runs it per row (and GCC 12 reports a false array-bounds
// warning where the concatenation is inlined into a loop).
inline const std::string& complete_row(WorkSource source) {
  static const std::string outbox = build_complete_row(WorkSource::Outbox);
  static const std::string inbox = build_complete_row(WorkSource::Inbox);
  return source == WorkSource::Outbox ? outbox : inbox;
}

// The retry schedule and the dead-letter rule, shared by every failing table. ?5 now ?6 dead
// letter now ?7 max attempts (0: never). Backoff: failure_backoff() of work_item.hpp, in SQL:
// now + unit × least(2^least(attempts + 1, max exponent), max factor).
inline constexpr const char* kDeadLetterNow =
    "($6::boolean OR ($7::integer > 0 AND attempts + 1 >= $7::integer))";
inline std::string failure_columns() {
  const auto unit_micros =
      std::chrono::duration_cast<std::chrono::microseconds>(kFailureBackoffUnit).count();
  return std::string("attempts = attempts + 1, instance_id = NULL, lease_expiry = NULL, ") +
         "dead_lettered_at = CASE WHEN " + kDeadLetterNow + " THEN $5::bigint ELSE NULL END, " +
         "scheduled_for = CASE WHEN " + kDeadLetterNow + " THEN NULL ELSE $5::bigint + " +
         std::to_string(unit_micros) + "::bigint * LEAST(1::bigint << LEAST(attempts + 1, " +
         std::to_string(kFailureBackoffMaxExponent) + "), " +
         std::to_string(kFailureBackoffMaxFactor) + ") END";
}
// ?4 error ?6 dead letter now ?7 max attempts ?8 reason; MaxAttemptsExceeded on the last attempt.
inline std::string failure_reason_columns() {
  return "error = $4::text, failure_reason = CASE WHEN NOT $6::boolean AND $7::integer > 0 AND "
         "attempts + 1 >= $7::integer THEN " +
         number(FailureReason::MaxAttemptsExceeded) + " ELSE $8::integer END, ";
}
// ?1 id ?2 instance ?3 flags ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason.
inline std::string fail_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) + " SET status = status | $3::integer | " +
         number(MessageStatus::Failed) + ", " + failure_reason_columns() + failure_columns() +
         " WHERE message_id = $1::uuid" + kOwnedBy2 +
         " RETURNING message_type, attempts, dead_lettered_at, stream_id";
}

// ---- coordination -----------------------------------------------------------------------------
// ?1 instance ?2 service ?3 host ?4 pid ?5 now
inline const std::string kHeartbeat =
    "INSERT INTO wh_service_instances (instance_id, service_name, host_name, process_id, "
    "started_at, last_heartbeat_at) VALUES ($1::uuid, $2::text, $3::text, $4::bigint, $5::bigint, "
    "$5::bigint) ON CONFLICT (instance_id) DO UPDATE "
    "SET last_heartbeat_at = excluded.last_heartbeat_at";
// How a claim's UPDATE finds the rows its CTE `c` locked: by key, and through the key's index
// (`= ANY(ARRAY(…))`). Joined on the key alone, the planner, estimating one row from the CTE,
// scans the whole table once per claimed row.
inline std::string claimed_rows(std::string_view key) {
  const std::string k(key);
  return "WHERE u." + k + " = c." + k + " AND u." + k + " = ANY(ARRAY(SELECT " + k + " FROM c))";
}
inline const std::string kClaimedRows = claimed_rows("message_id");

// Around an outbox or inbox claim: plain index scans only. Its stream-order check walks the
// stream index past the rows the stream has handled (deleted, dead until a vacuum): a plain
// index scan marks those entries dead once it has seen them, a bitmap scan never does and
// visits each again on every claim (a claim of 100 on 100 busy streams: 7.7 ms, then about
// 2.5 ms). Scoped to the claim: set for the whole session it turned the perspective claim's
// plan into nested seq scans (hundreds of ms with the claim lock held).
inline const std::string kPlainIndexScansOnly = "SET LOCAL enable_bitmapscan = off";
inline const std::string kAnyScans = "RESET enable_bitmapscan";

// ?1 now ?2 instance ?3 limit ?4 event-store outbox rows only ?5 lease expiry. Leases and
// returns rows in message-id (= time) order that are unleased, leased to this instance, or whose
// lease lapsed; not processed, not dead-lettered, not scheduled in the future; and (stream order)
// with no earlier live row of their stream that waits elsewhere: leased to another instance, or
// scheduled for later. Returns each row with its lease before this claim (columns 9, 10);
// RETURNING keeps no order: the caller sorts by message id.
inline std::string claim(WorkSource source) {
  const bool outbox = source == WorkSource::Outbox;
  const std::string only_event_store =
      outbox ? std::string(" AND (NOT $4::boolean OR destination IS NULL)") : std::string();
  return std::string(
             "WITH c AS MATERIALIZED (SELECT message_id, instance_id AS old_instance, "
             "lease_expiry AS old_lease FROM ") +
         table(source) +
         " AS r WHERE processed_at IS NULL AND dead_lettered_at IS NULL "
         "AND (scheduled_for IS NULL OR scheduled_for <= $1::bigint) "
         "AND (instance_id IS NULL OR lease_expiry < $1::bigint OR instance_id = $2::uuid)" +
         only_event_store + " AND (stream_id IS NULL OR NOT EXISTS (SELECT 1 FROM " +
         table(source) +
         " AS e WHERE e.stream_id = r.stream_id AND e.message_id < r.message_id "
         "AND e.processed_at IS NULL AND e.dead_lettered_at IS NULL" +
         (outbox ? std::string(" AND (NOT $4::boolean OR e.destination IS NULL)") : std::string()) +
         " AND (e.scheduled_for > $1::bigint OR (e.instance_id IS NOT NULL AND "
         "e.lease_expiry >= $1::bigint AND e.instance_id <> $2::uuid)))) "
         "ORDER BY message_id LIMIT $3::bigint FOR UPDATE OF r SKIP LOCKED) UPDATE " +
         table(source) + " AS u SET instance_id = $2::uuid, lease_expiry = $5::bigint FROM c " +
         kClaimedRows + " RETURNING u.message_id, " +
         (outbox ? "u.destination" : "u.handler_name") +
         ", u.message_type, u.event_data, u.stream_id, u.is_event, u.status, u.attempts, u.error, "
         "c.old_instance, c.old_lease, " +
         (outbox ? "NULL::uuid" : "u.source_service_id");
}
// ?1 id ?2 instance ?3 lease expiry
inline std::string renew_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) +
         " SET lease_expiry = $3::bigint WHERE message_id = $1::uuid AND instance_id = $2::uuid "
         "AND processed_at IS NULL AND dead_lettered_at IS NULL";
}
// ?1 id ?2 error ?3 now. A row the store cannot read (SerializationError) is dead-lettered.
inline std::string quarantine_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) + " SET status = status | " +
         number(MessageStatus::Failed) +
         ", error = $2::text, failure_reason = " + number(FailureReason::SerializationError) +
         ", dead_lettered_at = $3::bigint, scheduled_for = NULL, instance_id = NULL, "
         "lease_expiry = NULL WHERE message_id = $1::uuid";
}
inline std::string mark_event_stored(WorkSource source) {
  return std::string("UPDATE ") + table(source) + " SET status = status | " +
         number(MessageStatus::EventStored) + " WHERE message_id = $1::uuid";
}

// ---- event store ------------------------------------------------------------------------------
// ?1 event ?2 stream ?3 type ?4 data ?5 metadata ?6 now. The next version of the stream (each
// statement sees the appends of the statements before it in the transaction).
inline const std::string kAppendEvent =
    "INSERT INTO wh_event_store (event_id, stream_id, aggregate_id, aggregate_type, event_type, "
    "event_data, metadata, version, created_at) SELECT $1::uuid, $2::uuid, $2::uuid, $3::text, "
    "$3::text, $4::text, $5::text, COALESCE(MAX(version), 0) + 1, $6::bigint FROM wh_event_store "
    "WHERE stream_id = $2::uuid ON CONFLICT (event_id) DO NOTHING";
inline const std::string kPerspectivesOf =
    "SELECT target_name FROM wh_message_associations WHERE message_type = $1::text "
    "AND association_type = 'perspective' ORDER BY target_name COLLATE \"C\"";
// ?1 work id ?2 stream ?3 perspective ?4 event ?5 instance ?6 lease ?7 now. The event's version
// (appended by an earlier statement of the transaction) orders the stream's perspective events.
inline const std::string kInsertPerspectiveEvent =
    "INSERT INTO wh_perspective_events (event_work_id, stream_id, perspective_name, event_id, "
    "stream_version, instance_id, lease_expiry, status, created_at) SELECT $1::uuid, $2::uuid, "
    "$3::text, $4::uuid, version, $5::uuid, $6::bigint, 0, $7::bigint FROM wh_event_store "
    "WHERE event_id = $4::uuid ON CONFLICT DO NOTHING";
inline const std::string kInsertAssociation =
    "INSERT INTO wh_message_associations (message_type, association_type, target_name) "
    "VALUES ($1::text, 'perspective', $2::text) ON CONFLICT DO NOTHING";

// ---- receptor invocations ---------------------------------------------------------------------
inline const std::string kInsertInvocation =
    "INSERT INTO wh_receptor_invocations (message_id, receptor_id, service_name, perspective, "
    "stage, completed_at, duration_us) VALUES ($1::uuid, $2::text, $3::text, $4::text, "
    "$5::integer, $6::bigint, $7::bigint) ON CONFLICT DO NOTHING";
inline const std::string kFindInvocations =
    "SELECT receptor_id, stage, completed_at, duration_us, service_name, perspective "
    "FROM wh_receptor_invocations WHERE message_id = $1::uuid AND receptor_id = $2::text "
    "ORDER BY completed_at, service_name COLLATE \"C\", perspective COLLATE \"C\"";

// ---- perspectives -----------------------------------------------------------------------------
// ?1 now ?2 instance ?3 limit ?4 lease expiry. Per (stream, perspective) in the stream's version
// order (the order of appending: derived event ids need not follow it); the caller sorts by
// (stream, version, perspective).
inline const std::string kClaimPerspectiveWork =
    "WITH c AS MATERIALIZED (SELECT pe.event_work_id FROM wh_perspective_events pe "
    "WHERE pe.processed_at IS NULL AND pe.dead_lettered_at IS NULL "
    "AND (pe.scheduled_for IS NULL OR pe.scheduled_for <= $1::bigint) "
    "AND (pe.instance_id IS NULL OR pe.lease_expiry < $1::bigint OR pe.instance_id = $2::uuid) "
    "AND NOT EXISTS (SELECT 1 FROM wh_perspective_events e WHERE e.stream_id = pe.stream_id "
    "AND e.perspective_name = pe.perspective_name AND e.stream_version < pe.stream_version "
    "AND e.processed_at IS NULL AND e.dead_lettered_at IS NULL AND (e.scheduled_for > $1::bigint "
    "OR (e.instance_id IS NOT NULL AND e.lease_expiry >= $1::bigint AND "
    "e.instance_id <> $2::uuid))) "
    "ORDER BY pe.stream_id, pe.stream_version, pe.perspective_name COLLATE \"C\" LIMIT $3::bigint "
    "FOR UPDATE OF pe SKIP LOCKED) UPDATE wh_perspective_events AS u SET instance_id = $2::uuid, "
    "lease_expiry = $4::bigint, claimed_at = $1::bigint FROM c, wh_event_store es " +
    claimed_rows("event_work_id") +
    " AND es.event_id = u.event_id RETURNING u.event_work_id, u.stream_id, u.perspective_name, "
    "u.event_id, es.event_type, "
    "es.event_data, es.metadata, es.version, u.attempts";
// ?1 work id ?2 instance: the event of a perspective event this instance may complete.
inline const std::string kPerspectiveWorkEvent =
    std::string(
        "SELECT event_id, stream_id FROM wh_perspective_events "
        "WHERE event_work_id = $1::uuid") +
    kOwnedBy2;
// ?1 event: completions of one event's perspective events take turns, so exactly one of them
// sees the last one gone (the WhenAll check).
inline const std::string kLockEvent = "SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))";
// ?1 work id ?2 instance
inline const std::string kDeletePerspectiveWork =
    std::string("DELETE FROM wh_perspective_events WHERE event_work_id = $1::uuid") + kOwnedBy2;
inline const std::string kPerspectiveWorkRemaining =
    "SELECT count(*) FROM wh_perspective_events WHERE event_id = $1::uuid";
// ?1 work id ?2 instance ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason
inline const std::string kFailPerspectiveWork =
    "UPDATE wh_perspective_events SET status = status | " + number(MessageStatus::Failed) + ", " +
    failure_reason_columns() + failure_columns() + " WHERE event_work_id = $1::uuid" + kOwnedBy2 +
    " RETURNING perspective_name, attempts, dead_lettered_at, stream_id";
// ?1 perspective ?2 stream: a model loaded inside a transaction is this transaction's until it
// commits. Another instance's load waits rather than start from the model being replaced (the
// later save would drop this one's event), the stream's first model, not yet saved, included.
inline const std::string kLockPerspectiveModel =
    "SELECT pg_advisory_xact_lock(hashtextextended($1::text || '/' || $2::text, 0))";
inline const std::string kLoadPerspectiveModel =
    "SELECT model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = $1::text AND stream_id = $2::uuid";
// ?1 perspective ?2 stream ?3 model ?4 last event ?5 now
inline const std::string kSavePerspectiveModel =
    "INSERT INTO wh_perspective_models (perspective_name, stream_id, model_data, last_event_id, "
    "updated_at) VALUES ($1::text, $2::uuid, $3::text, $4::uuid, $5::bigint) "
    "ON CONFLICT (perspective_name, stream_id) DO UPDATE SET model_data = excluded.model_data, "
    "last_event_id = excluded.last_event_id, updated_at = excluded.updated_at";

// ---- lifecycle completions --------------------------------------------------------------------
// ?1 event ?2 stream ?3 instance ?4 lease expiry ?5 now
inline const std::string kInsertLifecycleCompletion =
    "INSERT INTO wh_lifecycle_completions (event_id, stream_id, instance_id, lease_expiry, "
    "created_at) VALUES ($1::uuid, $2::uuid, $3::uuid, $4::bigint, $5::bigint) "
    "ON CONFLICT (event_id) DO NOTHING";
// ?1 now ?2 instance ?3 limit ?4 lease expiry; the caller sorts by event id.
inline const std::string kClaimLifecycleWork =
    "WITH c AS MATERIALIZED (SELECT lc.event_id FROM wh_lifecycle_completions lc "
    "WHERE lc.dead_lettered_at IS NULL "
    "AND (lc.scheduled_for IS NULL OR lc.scheduled_for <= $1::bigint) AND (lc.instance_id IS "
    "NULL OR lc.lease_expiry < $1::bigint OR lc.instance_id = $2::uuid) ORDER BY lc.event_id "
    "LIMIT $3::bigint FOR UPDATE OF lc SKIP LOCKED) UPDATE wh_lifecycle_completions AS u "
    "SET instance_id = $2::uuid, lease_expiry = $4::bigint FROM c, wh_event_store es " +
    claimed_rows("event_id") +
    " AND es.event_id = u.event_id RETURNING u.event_id, "
    "u.stream_id, es.event_type, es.event_data, es.metadata, u.attempts";
// ?1 event ?2 instance ?3 lease expiry
inline const std::string kRenewLifecycleWork =
    "UPDATE wh_lifecycle_completions SET lease_expiry = $3::bigint WHERE event_id = $1::uuid "
    "AND instance_id = $2::uuid AND dead_lettered_at IS NULL";
// ?1 event ?2 instance
inline const std::string kDeleteLifecycleWork =
    std::string("DELETE FROM wh_lifecycle_completions WHERE event_id = $1::uuid") + kOwnedBy2;
// ?1 event ?2 instance ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason
inline const std::string kFailLifecycleWork =
    "UPDATE wh_lifecycle_completions SET " + failure_reason_columns() + failure_columns() +
    " WHERE event_id = $1::uuid" + kOwnedBy2 +
    " RETURNING 'PostLifecycle', attempts, dead_lettered_at, stream_id";

// ---- detached work ----------------------------------------------------------------------------
// ?1 work ?2 message ?3 receptor ?4 stage ?5 perspective ?6 envelope ?7 instance ?8 lease ?9 now
// ?10 message type
inline const std::string kInsertDetachedWork =
    "INSERT INTO wh_detached_work (work_id, message_id, receptor_id, stage, perspective, "
    "envelope, instance_id, lease_expiry, created_at, message_type) VALUES ($1::uuid, $2::uuid, "
    "$3::text, $4::integer, $5::text, $6::text, $7::uuid, $8::bigint, $9::bigint, $10::text)";
// ?1 now ?2 instance ?3 limit ?4 lease expiry; the caller sorts by work id. Not work leased to
// this instance: that is on its way through this process's executor.
inline const std::string kClaimDetachedWork =
    "WITH c AS MATERIALIZED (SELECT work_id FROM wh_detached_work WHERE dead_lettered_at IS NULL "
    "AND (scheduled_for IS NULL OR scheduled_for <= $1::bigint) "
    "AND (instance_id IS NULL OR lease_expiry < $1::bigint) "
    "ORDER BY work_id LIMIT $3::bigint FOR UPDATE SKIP LOCKED) UPDATE wh_detached_work AS u "
    "SET instance_id = $2::uuid, lease_expiry = $4::bigint FROM c " +
    claimed_rows("work_id") +
    " RETURNING u.work_id, u.message_id, u.receptor_id, u.stage, "
    "u.perspective, u.envelope, u.attempts, u.message_type";
// ?1 work ?2 instance. Only under this instance's own lease.
inline const std::string kDeleteDetachedWork =
    "DELETE FROM wh_detached_work WHERE work_id = $1::uuid AND dead_lettered_at IS NULL "
    "AND instance_id = $2::uuid";
// ?1 work ?2 instance ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason
inline const std::string kFailDetachedWork =
    "UPDATE wh_detached_work SET " + failure_reason_columns() + failure_columns() +
    " WHERE work_id = $1::uuid" + kOwnedBy2 +
    " RETURNING message_type, attempts, dead_lettered_at, NULL::uuid";

// ---- dead letters and retention ---------------------------------------------------------------
// Every dead letter, as DeadLetterSource numbers them: source, id, type, target, stream,
// attempts, error, reason, dead-lettered at. ?1 limit
inline const std::string kDeadLetters =
    "SELECT * FROM ("
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::Outbox)) +
    " AS source, message_id AS id, message_type, COALESCE(destination, '(event store)') AS "
    "target, stream_id, attempts, error, failure_reason, dead_lettered_at FROM wh_outbox "
    "WHERE dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::Inbox)) +
    ", message_id, message_type, handler_name, stream_id, attempts, error, failure_reason, "
    "dead_lettered_at FROM wh_inbox WHERE dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::PerspectiveEvent)) +
    ", pe.event_work_id, COALESCE(es.event_type, ''), pe.perspective_name, pe.stream_id, "
    "pe.attempts, pe.error, pe.failure_reason, pe.dead_lettered_at FROM wh_perspective_events pe "
    "LEFT JOIN wh_event_store es ON es.event_id = pe.event_id "
    "WHERE pe.dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::LifecycleCompletion)) +
    ", lc.event_id, COALESCE(es.event_type, ''), 'PostAllPerspectives/PostLifecycle', "
    "lc.stream_id, lc.attempts, lc.error, lc.failure_reason, lc.dead_lettered_at "
    "FROM wh_lifecycle_completions lc LEFT JOIN wh_event_store es ON es.event_id = lc.event_id "
    "WHERE lc.dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::DetachedWork)) +
    ", work_id, message_type, receptor_id, NULL, attempts, error, failure_reason, "
    "dead_lettered_at FROM wh_detached_work WHERE dead_lettered_at IS NOT NULL) AS letters "
    "ORDER BY dead_lettered_at, id LIMIT $1::bigint";
// Requeue: a fresh set of attempts, due now; the last error stays for the record. ?1 id, or NULL
// for every dead letter of the table.
inline std::string requeue(std::string_view table, std::string_view key) {
  return std::string("UPDATE ") + std::string(table) +
         " SET dead_lettered_at = NULL, attempts = 0, scheduled_for = NULL, instance_id = NULL, "
         "lease_expiry = NULL WHERE dead_lettered_at IS NOT NULL AND ($1::uuid IS NULL OR " +
         std::string(key) + " = $1::uuid)";
}
// ?1 cut-off (micros)
inline const std::string kPurgeDeduplication =
    "DELETE FROM wh_message_deduplication WHERE first_seen_at < $1::bigint";
// An id of wh_outbox_ids (as `ids`) is a published row's when its row is gone: a waiting row's
// id stays while the row does.
inline constexpr const char* kRowPublished =
    "NOT EXISTS (SELECT 1 FROM wh_outbox AS o WHERE o.message_id = ids.message_id)";
// Ids of published rows stored before the cut-off, found through stored_at's BRIN index
// (migrations.cpp).
inline const std::string kPurgePublishedIds =
    std::string("DELETE FROM wh_outbox_ids AS ids WHERE ids.stored_at < $1::bigint AND ") +
    kRowPublished;
inline const std::string kPurgeInvocations =
    "DELETE FROM wh_receptor_invocations WHERE completed_at < $1::bigint";
inline const std::string kPurgeDispatchKeys =
    "DELETE FROM wh_dispatch_keys WHERE first_seen_at < $1::bigint";
// ?1 id ?2 now
inline const std::string kRememberDispatch =
    "INSERT INTO wh_dispatch_keys (message_id, first_seen_at) VALUES ($1::uuid, $2::bigint) "
    "ON CONFLICT (message_id) DO NOTHING";
inline const std::string kPurgeRefusedDeliveries = "DELETE FROM wh_inbox WHERE handler_name = '" +
                                                   std::string(kRefusedDeliveryHandler) +
                                                   "' AND dead_lettered_at < $1::bigint";
// ?1 cut-off ?2 this instance (never purged: it is alive)
inline const std::string kPurgeInstances =
    "DELETE FROM wh_service_instances WHERE last_heartbeat_at < $1::bigint "
    "AND instance_id <> $2::uuid";

// ---- row reads (decoded by row_decoding.hpp, in these column orders) --------------------------
inline constexpr const char* kRowStateColumns =
    "status, attempts, error, failure_reason, instance_id, lease_expiry, scheduled_for, "
    "processed_at";
// ?1 id
inline const std::string kFindOutbox =
    std::string(
        "SELECT message_id, destination, message_type, event_data, scope, stream_id, "
        "is_event, ") +
    kRowStateColumns +
    ", published_at, created_at, dead_lettered_at FROM wh_outbox "
    "WHERE message_id = $1::uuid";
inline const std::string kFindInbox =
    std::string(
        "SELECT message_id, handler_name, message_type, event_data, source_service_id, "
        "stream_id, is_event, ") +
    kRowStateColumns +
    ", NULL::bigint, received_at, dead_lettered_at FROM wh_inbox "
    "WHERE message_id = $1::uuid";
// ?1 stream
inline const std::string kReadStream =
    "SELECT event_id, stream_id, event_type, event_data, metadata, version, created_at "
    "FROM wh_event_store WHERE stream_id = $1::uuid ORDER BY version";
inline const std::string kPerspectiveEvents =
    "SELECT event_work_id, stream_id, perspective_name, event_id, instance_id, lease_expiry, "
    "status, attempts, error, scheduled_for, dead_lettered_at, failure_reason, stream_version "
    "FROM wh_perspective_events WHERE stream_id = $1::uuid "
    "ORDER BY stream_version, perspective_name COLLATE \"C\"";

// ---- the inspector's listings: the row reads above, newest first, ?1 limit (NULL: all) -------
inline const std::string kRecentOutbox =
    std::string(
        "SELECT message_id, destination, message_type, event_data, scope, stream_id, "
        "is_event, ") +
    kRowStateColumns +
    ", published_at, created_at, dead_lettered_at FROM wh_outbox "
    "ORDER BY created_at DESC, message_id DESC LIMIT $1::bigint";
inline const std::string kRecentInbox =
    std::string(
        "SELECT message_id, handler_name, message_type, event_data, source_service_id, "
        "stream_id, is_event, ") +
    kRowStateColumns +
    ", NULL::bigint, received_at, dead_lettered_at FROM wh_inbox "
    "ORDER BY received_at DESC, message_id DESC LIMIT $1::bigint";
inline const std::string kRecentEvents =
    "SELECT event_id, stream_id, event_type, event_data, metadata, version, created_at "
    "FROM wh_event_store ORDER BY created_at DESC, event_id DESC LIMIT $1::bigint";
inline const std::string kRecentPerspectiveEvents =
    "SELECT event_work_id, stream_id, perspective_name, event_id, instance_id, lease_expiry, "
    "status, attempts, error, scheduled_for, dead_lettered_at, failure_reason, stream_version "
    "FROM wh_perspective_events ORDER BY created_at DESC, event_work_id DESC LIMIT $1::bigint";
inline const std::string kRecentInvocations =
    "SELECT message_id, receptor_id, service_name, perspective, stage, completed_at, duration_us "
    "FROM wh_receptor_invocations ORDER BY completed_at DESC, message_id DESC LIMIT $1::bigint";
// Row counts (StoreCounts), in its order; the ids of published rows count as the outbox's
// tombstones.
inline const std::string kCounts =
    std::string(
        "SELECT (SELECT count(*) FROM wh_outbox), (SELECT count(*) FROM wh_outbox_ids AS "
        "ids WHERE ") +
    kRowPublished +
    "), "
    "(SELECT count(*) FROM wh_inbox), (SELECT count(*) FROM wh_event_store), "
    "(SELECT count(*) FROM wh_perspective_events), (SELECT count(*) FROM wh_receptor_invocations), "
    "(SELECT count(*) FROM wh_outbox WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_inbox WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_perspective_events WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_lifecycle_completions WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_detached_work WHERE dead_lettered_at IS NOT NULL)";
// The tables of kCounts' dead-letter columns (6..10).
inline constexpr const char* kDeadLetterTables[] = {"wh_outbox", "wh_inbox",
                                                    "wh_perspective_events",
                                                    "wh_lifecycle_completions", "wh_detached_work"};

}  // namespace whizbang::postgres::sql
