// PostgreSQL SQL: the event store's appends and the perspective role.
#pragma once

#include <string>
#include <string_view>

#include "postgres/sql/dialect.hpp"

namespace whizbang::postgres::sql {

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

// ---- perspectives -----------------------------------------------------------------------------
// ?1 now ?2 instance ?3 limit ?4 lease expiry. Per (stream, perspective) in the stream's version
// order (the order of appending: derived event ids need not follow it); the caller sorts by
// (stream, version, perspective). The stream-order check's OFFSET 0 keeps it a per-row probe of
// the lane index: without it the planner turned it into an anti join, whose merge form read
// every row of the table when nothing was blocked (1M pending: 220 ms to 1 s per claim; with it,
// 2 to 10 ms): a claim priced by the backlog instead of the batch.
inline const std::string kClaimPerspectiveWork =
    "WITH c AS MATERIALIZED (SELECT pe.ctid AS row_id FROM wh_perspective_events pe "
    "WHERE pe.processed_at IS NULL AND pe.dead_lettered_at IS NULL "
    "AND (pe.scheduled_for IS NULL OR pe.scheduled_for <= $1::bigint) "
    "AND (pe.instance_id IS NULL OR pe.lease_expiry < $1::bigint OR pe.instance_id = $2::uuid) "
    "AND NOT EXISTS (SELECT 1 FROM wh_perspective_events e WHERE e.stream_id = pe.stream_id "
    "AND e.perspective_name = pe.perspective_name AND e.stream_version < pe.stream_version "
    "AND e.processed_at IS NULL AND e.dead_lettered_at IS NULL AND (e.scheduled_for > $1::bigint "
    "OR (e.instance_id IS NOT NULL AND e.lease_expiry >= $1::bigint AND "
    "e.instance_id <> $2::uuid)) OFFSET 0) "
    "ORDER BY pe.stream_id, pe.stream_version, pe.perspective_name COLLATE \"C\" LIMIT $3::bigint "
    "FOR UPDATE OF pe SKIP LOCKED) UPDATE wh_perspective_events AS u SET instance_id = $2::uuid, "
    "lease_expiry = $4::bigint, claimed_at = $1::bigint FROM c, wh_event_store es " +
    kClaimedRows +
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
// ?1 work id ?2 instance ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason ?9 wait
inline const std::string kFailPerspectiveWork = shapes::fail_perspective_work<Dialect>();
// ?1 perspective ?2 stream: a model loaded inside a transaction is this transaction's until it
// commits. Another instance's load waits rather than start from the model being replaced (the
// later save would drop this one's event), the stream's first model, not yet saved, included.
inline const std::string kLockPerspectiveModel =
    "SELECT pg_advisory_xact_lock(hashtextextended($1::text || '/' || $2::text, 0))";
inline const std::string kLoadPerspectiveModel =
    "SELECT model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = $1::text AND stream_id = $2::uuid";
// ?1 perspective ?2 stream ?3 model ?4 last event ?5 now. PostgreSQL derives the jsonb column
// `model` from model_data (migration 7), for users' SQL.
inline const std::string kSavePerspectiveModel =
    "INSERT INTO wh_perspective_models (perspective_name, stream_id, model_data, last_event_id, "
    "updated_at) VALUES ($1::text, $2::uuid, $3::text, $4::uuid, $5::bigint) "
    "ON CONFLICT (perspective_name, stream_id) DO UPDATE SET model_data = excluded.model_data, "
    "last_event_id = excluded.last_event_id, updated_at = excluded.updated_at";

}  // namespace whizbang::postgres::sql
