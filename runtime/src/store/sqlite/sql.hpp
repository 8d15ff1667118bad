// The SQL of the SQLite backend. Statements are cache keys (Connection::prepare), so each is one
// constant string. Outbox and inbox share their lease/retry columns; `table(source)` picks one.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::sqlite::sql {

inline const char* table(WorkSource source) {
  return source == WorkSource::Outbox ? "wh_outbox" : "wh_inbox";
}

// The numbers the SQL writes, spelled from the C++ enums they stand for.
inline std::string number(MessageStatus status) {
  return std::to_string(static_cast<std::uint32_t>(status));
}
inline std::string number(FailureReason reason) { return std::to_string(static_cast<int>(reason)); }

// An outbox or inbox row's status as it reads: the stored bits, plus EventStored when the row is
// an event on a stream whose event is in the event store. On SQLite the event's presence is the
// mark, so the claim that appends it does not rewrite the row (envelope and all) to say so
// (docs/guide/06-stores-and-workers.md, "What a claim writes"). `row`: the table or its alias.
inline std::string status_read(std::string_view row) {
  const std::string r(row);
  return "(" + r + ".status | CASE WHEN " + r + ".is_event <> 0 AND " + r +
         ".stream_id IS NOT NULL AND EXISTS (SELECT 1 FROM wh_event_store AS stored "
         "WHERE stored.event_id = " +
         r + ".message_id) THEN " + number(MessageStatus::EventStored) + " ELSE 0 END)";
}

// ---- storage ----------------------------------------------------------------------------------
// ?1 id ?2 destination ?3 type ?4 envelope ?5 scope ?6 stream ?7 is_event ?8 instance ?9 lease
// ?10 now ?11 scheduled for. A tombstoned (published) id is a duplicate like an existing row.
inline const std::string kInsertOutbox =
    "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, scope, stream_id, "
    "is_event, status, attempts, instance_id, lease_expiry, created_at, scheduled_for) "
    "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, 0, ?8, ?9, ?10, ?11 "
    "WHERE NOT EXISTS (SELECT 1 FROM wh_outbox_tombstones WHERE message_id = ?1) "
    "ON CONFLICT (message_id) DO NOTHING";
inline const std::string kInsertDeduplication =
    "INSERT INTO wh_message_deduplication (message_id, first_seen_at) VALUES (?1, ?2) "
    "ON CONFLICT (message_id) DO NOTHING";
// ?1 id ?2 handler ?3 type ?4 envelope ?5 stream ?6 is_event ?7 source service ?8 now ?9 instance
// ?10 lease expiry (both NULL: stored unleased)
inline const std::string kInsertInbox =
    "INSERT INTO wh_inbox (message_id, handler_name, message_type, event_data, stream_id, "
    "is_event, status, attempts, source_service_id, received_at, instance_id, lease_expiry) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, 0, ?7, ?8, ?9, ?10) ON CONFLICT (message_id) DO NOTHING";

// ?1 stream: an inbox row of it still to handle (handled rows are deleted; kept dead letters
// hold nothing back).
inline const std::string kInboxStreamWaits =
    "SELECT 1 FROM wh_inbox WHERE stream_id = ?1 AND processed_at IS NULL "
    "AND dead_lettered_at IS NULL LIMIT 1";

// ---- completions and failures -----------------------------------------------------------------
// Completions and failures touch a row only while it is leased to this instance (?2) or to
// nobody: once another instance claimed it after a lapsed lease, it is theirs.
inline constexpr const char* kOwnedBy2 = " AND (instance_id IS NULL OR instance_id = ?2)";

// ?1 id ?2 instance
inline std::string build_delete_row(WorkSource source) {
  return std::string("DELETE FROM ") + table(source) + " WHERE message_id = ?1" + kOwnedBy2;
}
// ?1 id ?2 instance. The tombstone of a published outbox row still ours, run just before its
// delete_row(): its age counts from when the row was stored (RetentionOptions). Not the delete's
// RETURNING: SQLite answers RETURNING through a temporary table, opened and freed per row.
inline const std::string kTombstoneOwnedOutboxRow =
    "INSERT INTO wh_outbox_tombstones (message_id, stored_at) "
    "SELECT message_id, created_at FROM wh_outbox WHERE message_id = ?1" +
    std::string(kOwnedBy2) + " ON CONFLICT (message_id) DO NOTHING";
// ?1 id ?2 instance ?3 flags ?4 now
inline std::string build_complete_row(WorkSource source) {
  std::string sql = std::string("UPDATE ") + table(source) +
                    " SET status = status | ?3, "
                    "processed_at = CASE WHEN ?3 <> 0 THEN ?4 ELSE processed_at END, "
                    "instance_id = NULL, lease_expiry = NULL";
  if (source == WorkSource::Outbox) {
    sql += ", published_at = CASE WHEN (?3 & " + number(MessageStatus::Published) +
           ") <> 0 THEN ?4 ELSE published_at END";
  }
  return sql + " WHERE message_id = ?1" + kOwnedBy2;
}

// The retry schedule and the dead-letter rule, shared by every failing table. ?5 now ?6 dead
// letter now (0/1) ?7 max attempts (0: never). Backoff: failure_backoff() of work_item.hpp, in
// SQL: now + unit × min(2^min(attempts + 1, max exponent), max factor).
inline constexpr const char* kDeadLetterNow = "(?6 OR (?7 > 0 AND attempts + 1 >= ?7))";
inline std::string failure_columns() {
  const auto unit_micros =
      std::chrono::duration_cast<std::chrono::microseconds>(kFailureBackoffUnit).count();
  return std::string("attempts = attempts + 1, instance_id = NULL, lease_expiry = NULL, ") +
         "dead_lettered_at = CASE WHEN " + kDeadLetterNow + " THEN ?5 ELSE NULL END, " +
         "scheduled_for = CASE WHEN " + kDeadLetterNow + " THEN NULL ELSE ?5 + " +
         std::to_string(unit_micros) + " * MIN(1 << MIN(attempts + 1, " +
         std::to_string(kFailureBackoffMaxExponent) + "), " +
         std::to_string(kFailureBackoffMaxFactor) + ") END";
}
// A failure's error and reason; the reason becomes MaxAttemptsExceeded on the last attempt.
// ?4 error ?6 dead letter now ?7 max attempts ?8 reason.
inline std::string failure_reason_columns() {
  return "error = ?4, failure_reason = CASE WHEN NOT ?6 AND ?7 > 0 AND attempts + 1 >= ?7 THEN " +
         number(FailureReason::MaxAttemptsExceeded) + " ELSE ?8 END, ";
}

// ?1 id ?2 instance ?3 flags ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason.
// Reaching max attempts turns the reason into MaxAttemptsExceeded (5). Returns what the failure
// counters and the dead-letter warning need. (dead_lettered_at itself, not "IS NOT NULL": SQLite
// 3.40's RETURNING answers that expression wrongly for a column the same UPDATE sets to NULL.)
inline std::string build_fail_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) + " SET status = status | ?3 | " +
         number(MessageStatus::Failed) + ", " + failure_reason_columns() + failure_columns() +
         " WHERE message_id = ?1" + kOwnedBy2 +
         " RETURNING message_type, attempts, dead_lettered_at, stream_id";
}

// ---- coordination -----------------------------------------------------------------------------
// ?1 instance ?2 service ?3 host ?4 pid ?5 now
inline const std::string kHeartbeat =
    "INSERT INTO wh_service_instances (instance_id, service_name, host_name, process_id, "
    "started_at, last_heartbeat_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5) "
    "ON CONFLICT (instance_id) DO UPDATE SET last_heartbeat_at = excluded.last_heartbeat_at";
// ?1 now ?2 instance ?3 limit ?4 event-store outbox rows only (0/1). Rows in message-id (= time)
// order that are unleased, leased to this instance, or whose lease lapsed; not processed, not
// dead-lettered, not scheduled in the future; and (stream order) with no earlier live row of
// their stream that waits elsewhere: leased to another instance, or scheduled for later (a
// retry). An earlier row that is claimable now comes first in the same answer.
inline std::string build_claimable(WorkSource source) {
  const bool outbox = source == WorkSource::Outbox;
  const std::string only_event_store =
      outbox ? std::string(" AND (?4 = 0 OR destination IS NULL)") : std::string();
  return std::string("SELECT message_id, ") + (outbox ? "destination" : "handler_name") +
         ", message_type, event_data, stream_id, is_event, " + status_read("r") +
         ", attempts, error, instance_id, lease_expiry, " +
         (outbox ? "NULL" : "source_service_id") + " FROM " + table(source) +
         " AS r WHERE processed_at IS NULL AND dead_lettered_at IS NULL "
         "AND (scheduled_for IS NULL OR scheduled_for <= ?1) "
         "AND (instance_id IS NULL OR lease_expiry < ?1 OR instance_id = ?2)" +
         only_event_store + " AND (stream_id IS NULL OR NOT EXISTS (SELECT 1 FROM " +
         table(source) +
         " AS e WHERE e.stream_id = r.stream_id AND e.message_id < r.message_id "
         "AND e.processed_at IS NULL AND e.dead_lettered_at IS NULL" +
         (outbox ? std::string(" AND (?4 = 0 OR e.destination IS NULL)") : std::string()) +
         " AND (e.scheduled_for > ?1 OR (e.instance_id IS NOT NULL AND e.lease_expiry >= ?1 "
         "AND e.instance_id <> ?2)))) "
         "ORDER BY message_id LIMIT ?3";
}
// ?1 id ?2 instance ?3 lease expiry
inline std::string build_lease_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) +
         " SET instance_id = ?2, lease_expiry = ?3 WHERE message_id = ?1";
}
// ?1 id ?2 instance ?3 lease expiry
inline std::string build_renew_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) +
         " SET lease_expiry = ?3 WHERE message_id = ?1 AND instance_id = ?2 "
         "AND processed_at IS NULL AND dead_lettered_at IS NULL";
}
// ?1 id ?2 instance: the lease of a row this instance holds, not yet processed nor dead-lettered
// (the rows renew_row() renews).
inline std::string build_lease_held_until(WorkSource source) {
  return std::string("SELECT lease_expiry FROM ") + table(source) +
         " WHERE message_id = ?1 AND instance_id = ?2 AND processed_at IS NULL "
         "AND dead_lettered_at IS NULL";
}
// ?1 id ?2 error ?3 now. A row the store cannot read (SerializationError) is dead-lettered.
inline std::string build_quarantine_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) + " SET status = status | " +
         number(MessageStatus::Failed) +
         ", error = ?2, failure_reason = " + number(FailureReason::SerializationError) +
         ", dead_lettered_at = ?3, scheduled_for = NULL, instance_id = NULL, lease_expiry = NULL "
         "WHERE message_id = ?1";
}

// The per-table statements above, each built once: the store runs them per row, and a
// statement's text is its key in the statement cache.
template <std::string (*Build)(WorkSource)>
const std::string& built_once(WorkSource source) {
  static const std::string outbox = Build(WorkSource::Outbox);
  static const std::string inbox = Build(WorkSource::Inbox);
  return source == WorkSource::Outbox ? outbox : inbox;
}
inline const std::string& delete_row(WorkSource source) {
  return built_once<build_delete_row>(source);
}
inline const std::string& complete_row(WorkSource source) {
  return built_once<build_complete_row>(source);
}
inline const std::string& fail_row(WorkSource source) { return built_once<build_fail_row>(source); }
inline const std::string& claimable(WorkSource source) {
  return built_once<build_claimable>(source);
}
inline const std::string& lease_row(WorkSource source) {
  return built_once<build_lease_row>(source);
}
inline const std::string& renew_row(WorkSource source) {
  return built_once<build_renew_row>(source);
}
inline const std::string& lease_held_until(WorkSource source) {
  return built_once<build_lease_held_until>(source);
}
inline const std::string& quarantine_row(WorkSource source) {
  return built_once<build_quarantine_row>(source);
}

// ---- event store ------------------------------------------------------------------------------
inline const std::string kStreamMaxVersion =
    "SELECT COALESCE(MAX(version), 0) FROM wh_event_store WHERE stream_id = ?1";
// ?1 event ?2 stream ?3 type ?4 data ?5 metadata ?6 version ?7 now
inline const std::string kAppendEvent =
    "INSERT INTO wh_event_store (event_id, stream_id, aggregate_id, aggregate_type, event_type, "
    "event_data, metadata, version, created_at) VALUES (?1, ?2, ?2, ?3, ?3, ?4, ?5, ?6, ?7) "
    "ON CONFLICT (event_id) DO NOTHING";
inline const std::string kPerspectivesOf =
    "SELECT target_name FROM wh_message_associations WHERE message_type = ?1 "
    "AND association_type = 'perspective' ORDER BY target_name";
// ?1 work id ?2 stream ?3 perspective ?4 event ?5 instance ?6 lease ?7 now ?8 the event's version
inline const std::string kInsertPerspectiveEvent =
    "INSERT INTO wh_perspective_events (event_work_id, stream_id, perspective_name, event_id, "
    "instance_id, lease_expiry, status, created_at, stream_version) VALUES (?1, ?2, ?3, ?4, ?5, "
    "?6, 0, ?7, ?8) ON CONFLICT DO NOTHING";
inline const std::string kInsertAssociation =
    "INSERT INTO wh_message_associations (message_type, association_type, target_name) "
    "VALUES (?1, 'perspective', ?2) ON CONFLICT DO NOTHING";

// ---- receptor invocations ---------------------------------------------------------------------
inline const std::string kInsertInvocation =
    "INSERT INTO wh_receptor_invocations (message_id, receptor_id, service_name, perspective, "
    "stage, completed_at, duration_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
    "ON CONFLICT DO NOTHING";
inline const std::string kFindInvocations =
    "SELECT receptor_id, stage, completed_at, duration_us, service_name, perspective "
    "FROM wh_receptor_invocations WHERE message_id = ?1 AND receptor_id = ?2 "
    "ORDER BY completed_at, service_name, perspective";

// ---- perspectives -----------------------------------------------------------------------------
// ?1 now ?2 instance ?3 limit. Per (stream, perspective) in the stream's version order (the order
// of appending: derived event ids need not follow it).
inline const std::string kClaimablePerspectiveWork =
    "SELECT pe.event_work_id, pe.stream_id, pe.perspective_name, pe.event_id, es.event_type, "
    "es.event_data, es.metadata, es.version, pe.attempts FROM wh_perspective_events pe "
    "JOIN wh_event_store es ON es.event_id = pe.event_id "
    "WHERE pe.processed_at IS NULL AND pe.dead_lettered_at IS NULL "
    "AND (pe.scheduled_for IS NULL OR pe.scheduled_for <= ?1) "
    "AND (pe.instance_id IS NULL OR pe.lease_expiry < ?1 OR pe.instance_id = ?2) "
    "AND NOT EXISTS (SELECT 1 FROM wh_perspective_events e WHERE e.stream_id = pe.stream_id "
    "AND e.perspective_name = pe.perspective_name AND e.stream_version < pe.stream_version "
    "AND e.processed_at IS NULL AND e.dead_lettered_at IS NULL AND (e.scheduled_for > ?1 OR "
    "(e.instance_id IS NOT NULL AND e.lease_expiry >= ?1 AND e.instance_id <> ?2))) "
    "ORDER BY pe.stream_id, pe.stream_version, pe.perspective_name LIMIT ?3";
// ?1 work id ?2 instance ?3 lease expiry ?4 now
inline const std::string kLeasePerspectiveWork =
    "UPDATE wh_perspective_events SET instance_id = ?2, lease_expiry = ?3, claimed_at = ?4 "
    "WHERE event_work_id = ?1";
// ?1 work id ?2 instance: the event of a perspective event this instance may complete.
inline const std::string kPerspectiveWorkEvent =
    std::string("SELECT event_id, stream_id FROM wh_perspective_events WHERE event_work_id = ?1") +
    kOwnedBy2;
inline const std::string kDeletePerspectiveWork =
    "DELETE FROM wh_perspective_events WHERE event_work_id = ?1";
inline const std::string kPerspectiveWorkRemaining =
    "SELECT count(*) FROM wh_perspective_events WHERE event_id = ?1";
// ?1 work id ?2 instance ?3 (unused) ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason
inline const std::string kFailPerspectiveWork =
    "UPDATE wh_perspective_events SET status = status | " + number(MessageStatus::Failed) + ", " +
    failure_reason_columns() + failure_columns() + " WHERE event_work_id = ?1" + kOwnedBy2 +
    " RETURNING perspective_name, attempts, dead_lettered_at, stream_id";

// ---- lifecycle completions (migration 5) --------------------------------------------------
// ?1 event ?2 stream ?3 instance ?4 lease expiry ?5 now
inline const std::string kInsertLifecycleCompletion =
    "INSERT INTO wh_lifecycle_completions (event_id, stream_id, instance_id, lease_expiry, "
    "created_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (event_id) DO NOTHING";
// ?1 now ?2 instance ?3 limit
inline const std::string kClaimableLifecycleWork =
    "SELECT lc.event_id, lc.stream_id, es.event_type, es.event_data, es.metadata, lc.attempts "
    "FROM wh_lifecycle_completions lc JOIN wh_event_store es ON es.event_id = lc.event_id "
    "WHERE lc.dead_lettered_at IS NULL AND (lc.scheduled_for IS NULL OR lc.scheduled_for <= ?1) "
    "AND (lc.instance_id IS NULL OR lc.lease_expiry < ?1 OR lc.instance_id = ?2) "
    "ORDER BY lc.event_id LIMIT ?3";
// ?1 event ?2 instance ?3 lease expiry
inline const std::string kLeaseLifecycleWork =
    "UPDATE wh_lifecycle_completions SET instance_id = ?2, lease_expiry = ?3 WHERE event_id = ?1";
// ?1 event ?2 instance ?3 lease expiry
inline const std::string kRenewLifecycleWork =
    "UPDATE wh_lifecycle_completions SET lease_expiry = ?3 WHERE event_id = ?1 "
    "AND instance_id = ?2 AND dead_lettered_at IS NULL";
// ?1 event ?2 instance
inline const std::string kDeleteLifecycleWork =
    std::string("DELETE FROM wh_lifecycle_completions WHERE event_id = ?1") + kOwnedBy2;
// ?1 event ?2 instance ?3 (unused) ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason
inline const std::string kFailLifecycleWork =
    "UPDATE wh_lifecycle_completions SET " + failure_reason_columns() + failure_columns() +
    " WHERE event_id = ?1" + kOwnedBy2 +
    " RETURNING 'PostLifecycle', attempts, dead_lettered_at, stream_id";
inline const std::string kLoadPerspectiveModel =
    "SELECT model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = ?1 AND stream_id = ?2";
// ?1 perspective ?2 stream ?3 model ?4 last event ?5 now
inline const std::string kSavePerspectiveModel =
    "INSERT INTO wh_perspective_models (perspective_name, stream_id, model_data, last_event_id, "
    "updated_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (perspective_name, stream_id) DO UPDATE "
    "SET model_data = excluded.model_data, last_event_id = excluded.last_event_id, "
    "updated_at = excluded.updated_at";

// ---- detached work (migration 5) ------------------------------------------------------------
// ?1 work ?2 message ?3 receptor ?4 stage ?5 perspective ?6 envelope ?7 instance ?8 lease ?9 now
// ?10 message type
inline const std::string kInsertDetachedWork =
    "INSERT INTO wh_detached_work (work_id, message_id, receptor_id, stage, perspective, "
    "envelope, instance_id, lease_expiry, created_at, message_type) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
// ?1 now ?3 limit. Not work leased to this instance: that is on its way through this process's
// executor.
inline const std::string kClaimableDetachedWork =
    "SELECT work_id, message_id, receptor_id, stage, perspective, envelope, attempts, "
    "message_type "
    "FROM wh_detached_work WHERE dead_lettered_at IS NULL "
    "AND (scheduled_for IS NULL OR scheduled_for <= ?1) "
    "AND (instance_id IS NULL OR lease_expiry < ?1) "
    "ORDER BY work_id LIMIT ?3";
// ?1 work ?2 instance ?3 lease expiry
inline const std::string kLeaseDetachedWork =
    "UPDATE wh_detached_work SET instance_id = ?2, lease_expiry = ?3 WHERE work_id = ?1";
// ?1 work ?2 instance. Only under this instance's own lease: a run that claimed it (the executor's
// at scheduling, the detached worker's), never an unleased one waiting for its retry.
inline const std::string kDeleteDetachedWork =
    "DELETE FROM wh_detached_work WHERE work_id = ?1 AND dead_lettered_at IS NULL "
    "AND instance_id = ?2";
// ?1 work ?2 instance ?3 (unused) ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason
inline const std::string kFailDetachedWork =
    "UPDATE wh_detached_work SET " + failure_reason_columns() + failure_columns() +
    " WHERE work_id = ?1" + kOwnedBy2 + " RETURNING message_type, attempts, dead_lettered_at, NULL";

// ---- dead letters and retention ---------------------------------------------------------------
// Every dead letter, as DeadLetterSource numbers them: source, id, type, target, stream,
// attempts, error, reason, dead-lettered at. ?1 limit
inline const std::string kDeadLetters =
    std::string("SELECT * FROM (") + "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::Outbox)) +
    ", message_id, message_type, COALESCE(destination, '(event store)'), stream_id, "
    "attempts, error, failure_reason, dead_lettered_at FROM wh_outbox "
    "WHERE dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::Inbox)) +
    ", message_id, message_type, handler_name, stream_id, attempts, error, "
    "failure_reason, dead_lettered_at FROM wh_inbox WHERE dead_lettered_at IS NOT NULL "
    "UNION ALL "
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
    ", work_id, message_type, receptor_id, NULL, attempts, error, "
    "failure_reason, dead_lettered_at FROM wh_detached_work WHERE dead_lettered_at IS NOT NULL) "
    "ORDER BY 9, 2 LIMIT ?1";
// Requeue: a fresh set of attempts, due now; the last error stays for the record. ?1 id, or NULL
// for every dead letter of the table.
inline std::string requeue(std::string_view table, std::string_view key) {
  return std::string("UPDATE ") + std::string(table) +
         " SET dead_lettered_at = NULL, attempts = 0, scheduled_for = NULL, instance_id = NULL, "
         "lease_expiry = NULL WHERE dead_lettered_at IS NOT NULL AND (?1 IS NULL OR " +
         std::string(key) + " = ?1)";
}
// ?1 cut-off (micros)
inline const std::string kPurgeDeduplication =
    "DELETE FROM wh_message_deduplication WHERE first_seen_at < ?1";
inline const std::string kPurgeTombstones = "DELETE FROM wh_outbox_tombstones WHERE stored_at < ?1";
inline const std::string kPurgeInvocations =
    "DELETE FROM wh_receptor_invocations WHERE completed_at < ?1";
inline const std::string kPurgeDispatchKeys =
    "DELETE FROM wh_dispatch_keys WHERE first_seen_at < ?1";
// ?1 id ?2 now
inline const std::string kRememberDispatch =
    "INSERT INTO wh_dispatch_keys (message_id, first_seen_at) VALUES (?1, ?2) "
    "ON CONFLICT (message_id) DO NOTHING";
inline const std::string kPurgeRefusedDeliveries = "DELETE FROM wh_inbox WHERE handler_name = '" +
                                                   std::string(kRefusedDeliveryHandler) +
                                                   "' AND dead_lettered_at < ?1";
// ?1 cut-off ?2 this instance (never purged: it is alive)
inline const std::string kPurgeInstances =
    "DELETE FROM wh_service_instances WHERE last_heartbeat_at < ?1 AND instance_id <> ?2";

// ---- row reads --------------------------------------------------------------------------------
// Each list is the columns one decoder of row_decoding.hpp reads, in its order. The work store
// and the inspector select the same lists, so a row reads the same through both; the inspector
// reads a column an older schema lacks as NULL (`select_columns`).
using ColumnList = std::span<const std::string_view>;
inline constexpr std::string_view kOutboxRowColumns[] = {
    "message_id",     "destination", "message_type",    "event_data",    "scope",
    "stream_id",      "is_event",    "status",          "attempts",      "error",
    "failure_reason", "instance_id", "lease_expiry",    "scheduled_for", "processed_at",
    "published_at",   "created_at",  "dead_lettered_at"};
// An inbox row is never published: NULL stands in for published_at.
inline constexpr std::string_view kInboxRowColumns[] = {
    "message_id",     "handler_name", "message_type",    "event_data",    "source_service_id",
    "stream_id",      "is_event",     "status",          "attempts",      "error",
    "failure_reason", "instance_id",  "lease_expiry",    "scheduled_for", "processed_at",
    "NULL",           "received_at",  "dead_lettered_at"};
inline constexpr std::string_view kEventRowColumns[] = {
    "event_id", "stream_id", "event_type", "event_data", "metadata", "version", "created_at"};
inline constexpr std::string_view kPerspectiveEventRowColumns[] = {
    "event_work_id",    "stream_id",      "perspective_name", "event_id", "instance_id",
    "lease_expiry",     "status",         "attempts",         "error",    "scheduled_for",
    "dead_lettered_at", "failure_reason", "stream_version"};
inline constexpr std::string_view kReceptorInvocationRowColumns[] = {
    "message_id", "receptor_id",  "service_name", "perspective",
    "stage",      "completed_at", "duration_us"};

// "a, b, c" for a SELECT of `table`; a column for which `present` answers false is selected as
// NULL. An outbox or inbox row's status is selected as it reads (status_read).
template <class Present>
std::string select_columns(std::string_view table, ColumnList columns, Present present) {
  const bool work_row = table == "wh_outbox" || table == "wh_inbox";
  std::string list;
  for (std::string_view column : columns) {
    if (!list.empty()) list += ", ";
    if (column != "NULL" && !present(column)) {
      list += "NULL";
    } else if (work_row && column == "status") {
      list += status_read(table);
    } else {
      list += column;
    }
  }
  return list;
}
inline std::string select_columns(std::string_view table, ColumnList columns) {
  return select_columns(table, columns, [](std::string_view) { return true; });
}

// ?1 id
inline const std::string kFindOutbox = "SELECT " + select_columns("wh_outbox", kOutboxRowColumns) +
                                       " FROM wh_outbox WHERE message_id = ?1";
inline const std::string kFindInbox = "SELECT " + select_columns("wh_inbox", kInboxRowColumns) +
                                      " FROM wh_inbox WHERE message_id = ?1";
// ?1 stream
inline const std::string kReadStream = "SELECT " +
                                       select_columns("wh_event_store", kEventRowColumns) +
                                       " FROM wh_event_store WHERE stream_id = ?1 ORDER BY version";
inline const std::string kPerspectiveEvents =
    "SELECT " + select_columns("wh_perspective_events", kPerspectiveEventRowColumns) +
    " FROM wh_perspective_events WHERE stream_id = ?1 ORDER BY stream_version, perspective_name";

// The inspector's newest-first listings: a table's row columns, newest first, ?1 limit
// (negative: all).
struct RecentListing {
  std::string_view table;
  ColumnList columns;
  std::string_view newest_first;  // ORDER BY
};
inline constexpr RecentListing kRecentOutbox{"wh_outbox", kOutboxRowColumns,
                                             "created_at DESC, message_id DESC"};
inline constexpr RecentListing kRecentInbox{"wh_inbox", kInboxRowColumns,
                                            "received_at DESC, message_id DESC"};
inline constexpr RecentListing kRecentEvents{"wh_event_store", kEventRowColumns,
                                             "created_at DESC, event_id DESC"};
inline constexpr RecentListing kRecentPerspectiveEvents{
    "wh_perspective_events", kPerspectiveEventRowColumns, "created_at DESC, event_work_id DESC"};
inline constexpr RecentListing kRecentInvocations{
    "wh_receptor_invocations", kReceptorInvocationRowColumns, "completed_at DESC, message_id DESC"};
// The SELECT of `listing`, given which columns the file's table has.
template <class Present>
std::string recent_rows(const RecentListing& listing, Present present) {
  return "SELECT " + select_columns(listing.table, listing.columns, present) + " FROM " +
         std::string(listing.table) + " ORDER BY " + std::string(listing.newest_first) +
         " LIMIT ?1";
}

// The inspector's look at a file: its tables, a table's columns, the tables that keep dead
// letters (those with a dead_lettered_at column).
inline const std::string kTables = "SELECT name FROM sqlite_master WHERE type = 'table'";
inline const std::string kTableColumns = "SELECT name FROM pragma_table_info(?1)";
inline const std::string kDeadLetterTables =
    "SELECT m.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS c "
    "WHERE m.type = 'table' AND m.name LIKE 'wh\\_%' ESCAPE '\\' "
    "AND c.name = 'dead_lettered_at' ORDER BY m.name";

}  // namespace whizbang::sqlite::sql
