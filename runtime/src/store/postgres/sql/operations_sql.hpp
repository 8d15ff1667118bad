// PostgreSQL SQL: dead letters, requeue and the retention purge (the operations role).
#pragma once

#include <string>
#include <string_view>

#include "postgres/sql/dialect.hpp"

namespace whizbang::postgres::sql {

// ---- dead letters and retention ---------------------------------------------------------------
// Every dead letter, oldest first (store/sql_shapes.hpp). ?1 limit
inline const std::string kDeadLetters = shapes::dead_letters<Dialect>();
// Requeue: a fresh set of attempts, due now; the last error stays for the record. ?1 id, or NULL
// for every dead letter of the table.
inline std::string requeue(std::string_view table, std::string_view key) {
  return shapes::requeue<Dialect>(table, key);
}
// The retention purge, one batch per statement (store/batched_purge.hpp): $1 cut-off (micros),
// $3 batch size. PostgreSQL's DELETE takes no LIMIT: at most $3 expired rows are found through
// the age index and deleted by their ctid (a TID scan).
inline std::string purge_batch(std::string_view table, std::string_view expired) {
  return std::string("DELETE FROM ")
      .append(table)
      .append(" WHERE ctid = ANY(ARRAY(SELECT ctid FROM ")
      .append(table)
      .append(" AS ids WHERE ")
      .append(expired)
      .append(" LIMIT $3::bigint))");
}
inline const std::string kPurgeDeduplication =
    purge_batch("wh_message_deduplication", "first_seen_at < $1::bigint");
// An id of wh_outbox_ids (as `ids`) is a published row's when its row is gone: a waiting row's
// id stays while the row does.
inline constexpr const char* kRowPublished =
    "NOT EXISTS (SELECT 1 FROM wh_outbox AS o WHERE o.message_id = ids.message_id)";
// Ids of published rows stored before the cut-off, found through stored_at's BRIN index
// (migrations.cpp).
inline const std::string kPurgeTombstones =
    purge_batch("wh_outbox_ids", std::string("ids.stored_at < $1::bigint AND ") + kRowPublished);
inline const std::string kPurgeInvocations =
    purge_batch("wh_receptor_invocations", "completed_at < $1::bigint");
inline const std::string kPurgeDispatchKeys =
    purge_batch("wh_dispatch_keys", "first_seen_at < $1::bigint");
inline const std::string kPurgeRefusedDeliveries =
    purge_batch("wh_inbox", "handler_name = '" + std::string(kRefusedDeliveryHandler) +
                                "' AND dead_lettered_at < $1::bigint");
// $2 this instance (never purged: it is alive)
inline const std::string kPurgeInstances = purge_batch(
    "wh_service_instances", "last_heartbeat_at < $1::bigint AND instance_id <> $2::uuid");
// ?1 id ?2 now
inline const std::string kRememberDispatch =
    "INSERT INTO wh_dispatch_keys (message_id, first_seen_at) VALUES ($1::uuid, $2::bigint) "
    "ON CONFLICT (message_id) DO NOTHING";

}  // namespace whizbang::postgres::sql
