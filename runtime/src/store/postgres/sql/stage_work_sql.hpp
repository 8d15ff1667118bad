// PostgreSQL SQL: lifecycle completions and detached work (the stage-work role).
#pragma once

#include <string>
#include <string_view>

#include "postgres/sql/dialect.hpp"

namespace whizbang::postgres::sql {

// ---- lifecycle completions --------------------------------------------------------------------
// ?1 event ?2 stream ?3 instance ?4 lease expiry ?5 now
inline const std::string kInsertLifecycleCompletion =
    "INSERT INTO wh_lifecycle_completions (event_id, stream_id, instance_id, lease_expiry, "
    "created_at) VALUES ($1::uuid, $2::uuid, $3::uuid, $4::bigint, $5::bigint) "
    "ON CONFLICT (event_id) DO NOTHING";
// ?1 now ?2 instance ?3 limit ?4 lease expiry; the caller sorts by event id.
inline const std::string kClaimLifecycleWork =
    "WITH c AS MATERIALIZED (SELECT lc.ctid AS row_id FROM wh_lifecycle_completions lc "
    "WHERE lc.dead_lettered_at IS NULL "
    "AND (lc.scheduled_for IS NULL OR lc.scheduled_for <= $1::bigint) AND (lc.instance_id IS "
    "NULL OR lc.lease_expiry < $1::bigint OR lc.instance_id = $2::uuid) ORDER BY lc.event_id "
    "LIMIT $3::bigint FOR UPDATE OF lc SKIP LOCKED) UPDATE wh_lifecycle_completions AS u "
    "SET instance_id = $2::uuid, lease_expiry = $4::bigint FROM c, wh_event_store es " +
    kClaimedRows +
    " AND es.event_id = u.event_id RETURNING u.event_id, "
    "u.stream_id, es.event_type, es.event_data, es.metadata, u.attempts";
// ?1 event ?2 instance ?3 lease expiry
inline const std::string kRenewLifecycleWork =
    "UPDATE wh_lifecycle_completions SET lease_expiry = $3::bigint WHERE event_id = $1::uuid "
    "AND instance_id = $2::uuid AND dead_lettered_at IS NULL";
// ?1 event ?2 instance
inline const std::string kDeleteLifecycleWork =
    std::string("DELETE FROM wh_lifecycle_completions WHERE event_id = $1::uuid") + kOwnedBy2;
// ?1 event ?2 instance ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason ?9 wait
inline const std::string kFailLifecycleWork = shapes::fail_lifecycle_work<Dialect>();

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
    "WITH c AS MATERIALIZED (SELECT ctid AS row_id FROM wh_detached_work WHERE dead_lettered_at "
    "IS NULL "
    "AND (scheduled_for IS NULL OR scheduled_for <= $1::bigint) "
    "AND (instance_id IS NULL OR lease_expiry < $1::bigint) "
    "ORDER BY work_id LIMIT $3::bigint FOR UPDATE SKIP LOCKED) UPDATE wh_detached_work AS u "
    "SET instance_id = $2::uuid, lease_expiry = $4::bigint FROM c " +
    kClaimedRows +
    " RETURNING u.work_id, u.message_id, u.receptor_id, u.stage, "
    "u.perspective, u.envelope, u.attempts, u.message_type";
// ?1 work ?2 instance. Only under this instance's own lease.
inline const std::string kDeleteDetachedWork =
    "DELETE FROM wh_detached_work WHERE work_id = $1::uuid AND dead_lettered_at IS NULL "
    "AND instance_id = $2::uuid";
// ?1 work ?2 instance ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason ?9 wait
inline const std::string kFailDetachedWork = shapes::fail_detached_work<Dialect>();

}  // namespace whizbang::postgres::sql
