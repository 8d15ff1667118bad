// The SQL of the SQLite backend. Statements are cache keys (Connection::prepare), so each is one
// constant string. Outbox and inbox share their lease/retry columns; `table(source)` picks one.
#pragma once

#include <string>

#include "whizbang/store/work_item.hpp"

namespace whizbang::sqlite::sql {

inline const char* table(WorkSource source) {
  return source == WorkSource::Outbox ? "wh_outbox" : "wh_inbox";
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
// ?1 id ?2 handler ?3 type ?4 envelope ?5 stream ?6 is_event ?7 source service ?8 now
inline const std::string kInsertInbox =
    "INSERT INTO wh_inbox (message_id, handler_name, message_type, event_data, stream_id, "
    "is_event, status, attempts, source_service_id, received_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, 0, ?7, ?8) ON CONFLICT (message_id) DO NOTHING";

// ---- completions and failures -----------------------------------------------------------------
inline std::string delete_row(WorkSource source) {
  return std::string("DELETE FROM ") + table(source) + " WHERE message_id = ?1";
}
inline const std::string kInsertTombstone =
    "INSERT INTO wh_outbox_tombstones (message_id, published_at) VALUES (?1, ?2) "
    "ON CONFLICT (message_id) DO NOTHING";
// ?1 id ?2 flags ?3 now
inline std::string complete_row(WorkSource source) {
  std::string sql = std::string("UPDATE ") + table(source) +
                    " SET status = status | ?2, "
                    "processed_at = CASE WHEN ?2 <> 0 THEN ?3 ELSE processed_at END, "
                    "instance_id = NULL, lease_expiry = NULL";
  if (source == WorkSource::Outbox) {
    sql += ", published_at = CASE WHEN (?2 & 4) <> 0 THEN ?3 ELSE published_at END";
  }
  return sql + " WHERE message_id = ?1";
}
// ?1 id ?2 flags ?3 error ?4 reason ?5 now ?6 quarantine (0/1). Backoff: now + 30 s ×
// min(2^min(attempts + 1, 10), 10).
inline std::string fail_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) +
         " SET status = status | ?2 | 32768, error = ?3, failure_reason = ?4, "
         "scheduled_for = CASE WHEN ?6 THEN NULL "
         "ELSE ?5 + 30000000 * MIN(1 << MIN(attempts + 1, 10), 10) END, "
         "processed_at = CASE WHEN ?6 THEN ?5 ELSE processed_at END, "
         "attempts = attempts + 1, instance_id = NULL, lease_expiry = NULL "
         "WHERE message_id = ?1";
}

// ---- coordination -----------------------------------------------------------------------------
// ?1 instance ?2 service ?3 host ?4 pid ?5 now
inline const std::string kHeartbeat =
    "INSERT INTO wh_service_instances (instance_id, service_name, host_name, process_id, "
    "started_at, last_heartbeat_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5) "
    "ON CONFLICT (instance_id) DO UPDATE SET last_heartbeat_at = excluded.last_heartbeat_at";
// ?1 now ?2 instance ?3 limit. Rows in message-id (= time) order that are unleased, leased to
// this instance, or whose lease lapsed; not processed; not scheduled in the future.
inline std::string claimable(WorkSource source) {
  const bool outbox = source == WorkSource::Outbox;
  return std::string("SELECT message_id, ") + (outbox ? "destination" : "handler_name") +
         ", message_type, event_data, stream_id, is_event, status, attempts, error, "
         "instance_id, lease_expiry, " +
         (outbox ? "NULL" : "source_service_id") + " FROM " + table(source) +
         " WHERE processed_at IS NULL AND (scheduled_for IS NULL OR scheduled_for <= ?1) "
         "AND (instance_id IS NULL OR lease_expiry < ?1 OR instance_id = ?2) "
         "ORDER BY message_id LIMIT ?3";
}
// ?1 id ?2 instance ?3 lease expiry
inline std::string lease_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) +
         " SET instance_id = ?2, lease_expiry = ?3 WHERE message_id = ?1";
}
// ?1 id ?2 instance ?3 lease expiry
inline std::string renew_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) +
         " SET lease_expiry = ?3 WHERE message_id = ?1 AND instance_id = ?2";
}
// ?1 id ?2 error ?3 now
inline std::string quarantine_row(WorkSource source) {
  return std::string("UPDATE ") + table(source) +
         " SET status = status | 32768, error = ?2, failure_reason = 3, processed_at = ?3, "
         "instance_id = NULL, lease_expiry = NULL WHERE message_id = ?1";
}
inline std::string mark_event_stored(WorkSource source) {
  return std::string("UPDATE ") + table(source) + " SET status = status | 2 WHERE message_id = ?1";
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
// ?1 work id ?2 stream ?3 perspective ?4 event ?5 instance ?6 lease ?7 now
inline const std::string kInsertPerspectiveEvent =
    "INSERT INTO wh_perspective_events (event_work_id, stream_id, perspective_name, event_id, "
    "instance_id, lease_expiry, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7) "
    "ON CONFLICT DO NOTHING";
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
// ?1 now ?2 instance ?3 limit
inline const std::string kClaimablePerspectiveWork =
    "SELECT pe.event_work_id, pe.stream_id, pe.perspective_name, pe.event_id, es.event_type, "
    "es.event_data, es.metadata, es.version, pe.attempts FROM wh_perspective_events pe "
    "JOIN wh_event_store es ON es.event_id = pe.event_id "
    "WHERE pe.processed_at IS NULL AND (pe.scheduled_for IS NULL OR pe.scheduled_for <= ?1) "
    "AND (pe.instance_id IS NULL OR pe.lease_expiry < ?1 OR pe.instance_id = ?2) "
    "ORDER BY pe.stream_id, pe.event_id, pe.perspective_name LIMIT ?3";
// ?1 work id ?2 instance ?3 lease expiry ?4 now
inline const std::string kLeasePerspectiveWork =
    "UPDATE wh_perspective_events SET instance_id = ?2, lease_expiry = ?3, claimed_at = ?4 "
    "WHERE event_work_id = ?1";
inline const std::string kPerspectiveWorkEvent =
    "SELECT event_id FROM wh_perspective_events WHERE event_work_id = ?1";
inline const std::string kDeletePerspectiveWork =
    "DELETE FROM wh_perspective_events WHERE event_work_id = ?1";
inline const std::string kPerspectiveWorkRemaining =
    "SELECT count(*) FROM wh_perspective_events WHERE event_id = ?1";
// ?1 work id ?2 error ?3 now
inline const std::string kFailPerspectiveWork =
    "UPDATE wh_perspective_events SET error = ?2, "
    "scheduled_for = ?3 + 30000000 * MIN(1 << MIN(attempts + 1, 10), 10), "
    "attempts = attempts + 1, instance_id = NULL, lease_expiry = NULL WHERE event_work_id = ?1";
inline const std::string kLoadPerspectiveModel =
    "SELECT model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = ?1 AND stream_id = ?2";
// ?1 perspective ?2 stream ?3 model ?4 last event ?5 now
inline const std::string kSavePerspectiveModel =
    "INSERT INTO wh_perspective_models (perspective_name, stream_id, model_data, last_event_id, "
    "updated_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (perspective_name, stream_id) DO UPDATE "
    "SET model_data = excluded.model_data, last_event_id = excluded.last_event_id, "
    "updated_at = excluded.updated_at";

// ---- reads ------------------------------------------------------------------------------------
inline const std::string kFindOutbox =
    "SELECT destination, message_type, event_data, scope, stream_id, is_event, status, attempts, "
    "error, failure_reason, instance_id, lease_expiry, scheduled_for, processed_at, published_at, "
    "created_at FROM wh_outbox WHERE message_id = ?1";
inline const std::string kFindInbox =
    "SELECT handler_name, message_type, event_data, source_service_id, stream_id, is_event, "
    "status, attempts, error, failure_reason, instance_id, lease_expiry, scheduled_for, "
    "processed_at, NULL, received_at FROM wh_inbox WHERE message_id = ?1";
inline const std::string kReadStream =
    "SELECT event_id, event_type, event_data, metadata, version, created_at FROM wh_event_store "
    "WHERE stream_id = ?1 ORDER BY version";
inline const std::string kPerspectiveEvents =
    "SELECT event_work_id, perspective_name, event_id, instance_id, lease_expiry, status, "
    "attempts, error, scheduled_for "
    "FROM wh_perspective_events WHERE stream_id = ?1 ORDER BY event_id, perspective_name";

}  // namespace whizbang::sqlite::sql
