// SQLite SQL: the event store's appends and the perspective role.
#pragma once

#include <string>
#include <string_view>

#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql {

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
// ?1 work id ?2 instance ?3 (unused) ?4 error ?5 now ?6 dead letter now ?7 max attempts
// ?8 reason ?9 wait
inline const std::string kFailPerspectiveWork = shapes::fail_perspective_work<Dialect>();

}  // namespace whizbang::sqlite::sql
