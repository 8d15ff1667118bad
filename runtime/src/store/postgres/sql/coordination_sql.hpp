// PostgreSQL SQL: completions, failures, claims, leases and receptor invocations (the coordination
// role).
#pragma once

#include <array>
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
// How a claim's UPDATE finds the rows its CTE `c` locked (`c` selects each row's ctid as
// row_id): by their place in the table, one TID lookup per row, which no statistics can turn
// into anything else. Joined by key, a planner that believed the table empty walked the whole
// key index as the outer side of the join (1M rows behind the batch: 33 ms for 100 rows); with
// `key = ANY(ARRAY(SELECT key FROM c))` added, each key lookup sorted the batch's ids again (a
// claim of 10,000 rows: 2.4 s). A row locked by `c` is this transaction's until it commits, so
// its place does not change under the UPDATE. The one row it misses: a version committed after
// this statement began (c locks the newest), which its snapshot does not see; that row is not
// leased nor returned, and the next claim takes it.
inline const std::string kClaimedRows = "WHERE u.ctid = c.row_id";

// Around the store's own statements on its work tables (a work batch, its event appends, the
// perspective claim: Pipeline::surround): they are planned to walk an index, whatever the
// tables' statistics say. A work table's statistics are rarely the backlog's:
// - analyzed while a peer held every lease, the planner believed almost no row claimable and
//   read and sorted the whole table instead (100k perspective events: 325 ms per claim against
//   5 ms). So no sequential scans and no whole sorts (an incremental sort of the walked rows
//   stays allowed), and no hash or merge joins (the generic plan, not knowing the LIMIT, hashed
//   the whole table to join the claimed rows to it);
// - vacuumed while empty, a table looks a page or two long, and a connection keeps the generic
//   plan it made then: an update by key kept scanning the whole table while a burst grew it
//   (after a million messages: 0.45 ms a row, 40 ms per 100 appended events against 9);
// - no bitmap scans: the stream-order check walks the stream index past the rows the stream has
//   handled (deleted, dead until a vacuum); a plain index scan marks those entries dead once it
//   has seen them, a bitmap scan never does (a claim of 100 on 100 busy streams: 7.7 ms, then
//   about 2.5 ms).
// Scoped to those statements: each setting's value before them is kept in a placeholder setting
// ("whizbang.saved_enable_seqscan") and put back after them, all transaction-local, so SQL the
// application runs in the same transaction plans as it always did, under its own SET or SET
// LOCAL too. (RESET, used before, put back the session's default instead: an application's own
// SET of one of them was lost at the store's next claim. Reading the values back to the client
// to restore them took 1.3 ms; kept on the server, they cost statements of the same pipeline.)
namespace plan_by_indexes_detail {

// The planner settings turned off around the store's statements, each named once here.
inline constexpr std::array<std::string_view, 5> kSwitches = {
    "enable_bitmapscan", "enable_seqscan", "enable_sort", "enable_hashjoin", "enable_mergejoin"};

// "SELECT set_config('<setting>', <value>, true), ..." for every switch, "{}" in `setting` and
// `value` standing for the switch's name.
inline std::string set_each(std::string_view setting, std::string_view value) {
  std::string sql = "SELECT ";
  for (const std::string_view name : kSwitches) {
    if (name != kSwitches.front()) sql += ", ";
    std::string each =
        "set_config('" + std::string(setting) + "', " + std::string(value) + ", true)";
    for (auto at = each.find("{}"); at != std::string::npos; at = each.find("{}", at)) {
      each.replace(at, 2, name);
    }
    sql += each;
  }
  return sql;
}

}  // namespace plan_by_indexes_detail

// Each switch's value kept (in "whizbang.saved_<switch>"), then each switch off.
inline const std::array<std::string, 2> kPlanByIndexes = {
    plan_by_indexes_detail::set_each("whizbang.saved_{}", "current_setting('{}')"),
    plan_by_indexes_detail::set_each("{}", "'off'")};
// Each switch's kept value put back.
inline const std::array<std::string, 1> kAfterPlanByIndexes = {
    plan_by_indexes_detail::set_each("{}", "current_setting('whizbang.saved_{}')")};

// ?1 now ?2 instance ?3 limit ?4 event-store outbox rows only ?5 lease expiry. Leases and
// returns rows in message-id (= time) order that are unleased, leased to this instance, or whose
// lease lapsed; not processed, not dead-lettered, not scheduled in the future; and (stream order)
// with no earlier live row of their stream that waits elsewhere: leased to another instance, or
// scheduled for later. The earlier rows are compared as (stream, id) pairs, which only the
// stream index can answer: compared by id alone, a planner that believed the table empty probed
// the key index instead, reading every older row of every stream once per row claimed (45 ms
// for a claim of 100 behind a million handled rows). Returns each row with its lease before
// this claim (columns 9, 10);
// RETURNING keeps no order: the caller sorts by message id.
inline std::string claim(WorkSource source) {
  const bool outbox = source == WorkSource::Outbox;
  const std::string only_event_store =
      outbox ? std::string(" AND (NOT $4::boolean OR destination IS NULL)") : std::string();
  return std::string(
             "WITH c AS MATERIALIZED (SELECT r.ctid AS row_id, message_id, instance_id AS "
             "old_instance, "
             "lease_expiry AS old_lease FROM ") +
         table(source) +
         " AS r WHERE processed_at IS NULL AND dead_lettered_at IS NULL "
         "AND (scheduled_for IS NULL OR scheduled_for <= $1::bigint) "
         "AND (instance_id IS NULL OR lease_expiry < $1::bigint OR instance_id = $2::uuid)" +
         only_event_store + " AND (stream_id IS NULL OR NOT EXISTS (SELECT 1 FROM " +
         table(source) +
         " AS e WHERE e.stream_id = r.stream_id AND (e.stream_id, e.message_id) < (r.stream_id, "
         "r.message_id) "
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
