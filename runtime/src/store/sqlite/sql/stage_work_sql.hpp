// SQLite SQL: lifecycle completions and detached work (the stage-work role).
#pragma once

#include <string>
#include <string_view>

#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql {

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
// ?1 event ?2 instance ?3 (unused) ?4 error ?5 now ?6 dead letter now ?7 max attempts
// ?8 reason ?9 wait
inline const std::string kFailLifecycleWork = shapes::fail_lifecycle_work<Dialect>();
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
// ?1 work ?2 instance ?3 (unused) ?4 error ?5 now ?6 dead letter now ?7 max attempts
// ?8 reason ?9 wait
inline const std::string kFailDetachedWork = shapes::fail_detached_work<Dialect>();

}  // namespace whizbang::sqlite::sql
