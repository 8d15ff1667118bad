// SQLite SQL: dead letters, requeue and the retention purge (the operations role).
#pragma once

#include <string>
#include <string_view>

#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql {

// ---- dead letters and retention ---------------------------------------------------------------
// Every dead letter, oldest first (store/sql_shapes.hpp). ?1 limit
inline const std::string kDeadLetters = shapes::dead_letters<Dialect>();
// Requeue: a fresh set of attempts, due now; the last error stays for the record. ?1 id, or NULL
// for every dead letter of the table.
inline std::string requeue(std::string_view table, std::string_view key) {
  return shapes::requeue<Dialect>(table, key);
}
// The retention purge, one batch per statement (store/batched_purge.hpp): ?1 cut-off (micros),
// ?3 batch size. The tables are WITHOUT ROWID, and SQLite's DELETE takes no LIMIT: the expired
// rows' keys are found through the age index, at most ?3 of them, and deleted by key.
inline std::string purge_batch(std::string_view table, std::string_view key,
                               std::string_view expired) {
  return std::string("DELETE FROM ")
      .append(table)
      .append(" WHERE (")
      .append(key)
      .append(") IN (SELECT ")
      .append(key)
      .append(" FROM ")
      .append(table)
      .append(" WHERE ")
      .append(expired)
      .append(" LIMIT ?3)");
}
inline const std::string kPurgeDeduplication =
    purge_batch("wh_message_deduplication", "message_id", "first_seen_at < ?1");
inline const std::string kPurgeTombstones =
    purge_batch("wh_outbox_tombstones", "message_id", "stored_at < ?1");
inline const std::string kPurgeInvocations =
    purge_batch("wh_receptor_invocations", "message_id, receptor_id, service_name, perspective",
                "completed_at < ?1");
inline const std::string kPurgeDispatchKeys =
    purge_batch("wh_dispatch_keys", "message_id", "first_seen_at < ?1");
inline const std::string kPurgeRefusedDeliveries = purge_batch(
    "wh_inbox", "message_id",
    "handler_name = '" + std::string(kRefusedDeliveryHandler) + "' AND dead_lettered_at < ?1");
// ?2 this instance (never purged: it is alive)
inline const std::string kPurgeInstances = purge_batch(
    "wh_service_instances", "instance_id", "last_heartbeat_at < ?1 AND instance_id <> ?2");
// ?1 id ?2 now
inline const std::string kRememberDispatch =
    "INSERT INTO wh_dispatch_keys (message_id, first_seen_at) VALUES (?1, ?2) "
    "ON CONFLICT (message_id) DO NOTHING";

}  // namespace whizbang::sqlite::sql
