// PostgreSQL SQL: completions, failures, claims, leases and receptor invocations (the coordination
// role).
#pragma once

#include <string>
#include <string_view>

#include "postgres/sql/dialect.hpp"

namespace whizbang::postgres::sql {

// ?1 ids (a uuid[] literal) ?2 instance. Completed rows are deleted, in one statement per batch;
// a published outbox row's id stays in wh_outbox_ids until the retention purge.
inline std::string delete_rows(WorkSource source) {
  return std::string("DELETE FROM ") + table(source) + " WHERE message_id = ANY($1::uuid[])" +
         kOwnedBy2;
}
// ?1 id ?2 instance ?3 flags ?4 now
inline std::string build_complete_row(WorkSource source) {
  return shapes::complete_row<Dialect>(source);
}
// Built once per table: the store runs it per row (and GCC 12 reports a false array-bounds
// warning where the concatenation is inlined into a loop).
inline const std::string& complete_row(WorkSource source) {
  static const std::string outbox = build_complete_row(WorkSource::Outbox);
  static const std::string inbox = build_complete_row(WorkSource::Inbox);
  return source == WorkSource::Outbox ? outbox : inbox;
}

// ?1 id ?2 instance ?3 flags ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason.
inline std::string fail_row(WorkSource source) { return shapes::fail_row<Dialect>(source); }

// ?1 id ?2 instance ?3 due at. Built once per table, as complete_row().
inline const std::string& defer_row(WorkSource source) {
  static const std::string outbox = shapes::defer_row<Dialect>(WorkSource::Outbox);
  static const std::string inbox = shapes::defer_row<Dialect>(WorkSource::Inbox);
  return source == WorkSource::Outbox ? outbox : inbox;
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
inline std::string renew_row(WorkSource source) { return shapes::renew_row<Dialect>(source); }
// ?1 id ?2 error ?3 now. A row the store cannot read (SerializationError) is dead-lettered.
inline std::string quarantine_row(WorkSource source) {
  return shapes::quarantine_row<Dialect>(source);
}
inline std::string mark_event_stored(WorkSource source) {
  return std::string("UPDATE ") + table(source) + " SET status = status | " +
         number(MessageStatus::EventStored) + " WHERE message_id = $1::uuid";
}

// ---- receptor invocations ---------------------------------------------------------------------
inline const std::string kInsertInvocation =
    "INSERT INTO wh_receptor_invocations (message_id, receptor_id, service_name, perspective, "
    "stage, completed_at, duration_us) VALUES ($1::uuid, $2::text, $3::text, $4::text, "
    "$5::integer, $6::bigint, $7::bigint) ON CONFLICT DO NOTHING";
inline const std::string kFindInvocations =
    "SELECT receptor_id, stage, completed_at, duration_us, service_name, perspective "
    "FROM wh_receptor_invocations WHERE message_id = $1::uuid AND receptor_id = $2::text "
    "ORDER BY completed_at, service_name COLLATE \"C\", perspective COLLATE \"C\"";

}  // namespace whizbang::postgres::sql
