// SQLite SQL: completions, failures, claims, leases and receptor invocations (the coordination
// role).
#pragma once

#include <string>
#include <string_view>

#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql {

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
  return shapes::complete_row<Dialect>(source);
}

// ?1 id ?2 instance ?3 flags ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason.
// Reaching max attempts turns the reason into MaxAttemptsExceeded (5). Returns what the failure
// counters and the dead-letter warning need. (dead_lettered_at itself, not "IS NOT NULL": SQLite
// 3.40's RETURNING answers that expression wrongly for a column the same UPDATE sets to NULL.)
inline std::string build_fail_row(WorkSource source) { return shapes::fail_row<Dialect>(source); }

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
inline std::string build_renew_row(WorkSource source) { return shapes::renew_row<Dialect>(source); }
// ?1 id ?2 instance: the lease of a row this instance holds, not yet processed nor dead-lettered
// (the rows renew_row() renews).
inline std::string build_lease_held_until(WorkSource source) {
  return std::string("SELECT lease_expiry FROM ") + table(source) +
         " WHERE message_id = ?1 AND instance_id = ?2 AND processed_at IS NULL "
         "AND dead_lettered_at IS NULL";
}
// ?1 id ?2 error ?3 now. A row the store cannot read (SerializationError) is dead-lettered.
inline std::string build_quarantine_row(WorkSource source) {
  return shapes::quarantine_row<Dialect>(source);
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
// ?1 id ?2 instance ?3 due at
inline std::string build_defer_row(WorkSource source) { return shapes::defer_row<Dialect>(source); }
inline const std::string& defer_row(WorkSource source) {
  return built_once<build_defer_row>(source);
}
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

// ---- receptor invocations ---------------------------------------------------------------------
inline const std::string kInsertInvocation =
    "INSERT INTO wh_receptor_invocations (message_id, receptor_id, service_name, perspective, "
    "stage, completed_at, duration_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
    "ON CONFLICT DO NOTHING";
inline const std::string kFindInvocations =
    "SELECT receptor_id, stage, completed_at, duration_us, service_name, perspective "
    "FROM wh_receptor_invocations WHERE message_id = ?1 AND receptor_id = ?2 "
    "ORDER BY completed_at, service_name, perspective";

}  // namespace whizbang::sqlite::sql
