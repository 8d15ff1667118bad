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
// ?1 cut-off (micros)
inline const std::string kPurgeDeduplication =
    shapes::purge_older<Dialect>("wh_message_deduplication", "first_seen_at");
inline const std::string kPurgeTombstones =
    shapes::purge_older<Dialect>("wh_outbox_tombstones", "stored_at");
inline const std::string kPurgeInvocations =
    shapes::purge_older<Dialect>("wh_receptor_invocations", "completed_at");
inline const std::string kPurgeDispatchKeys =
    shapes::purge_older<Dialect>("wh_dispatch_keys", "first_seen_at");
// ?1 id ?2 now
inline const std::string kRememberDispatch =
    "INSERT INTO wh_dispatch_keys (message_id, first_seen_at) VALUES (?1, ?2) "
    "ON CONFLICT (message_id) DO NOTHING";
inline const std::string kPurgeRefusedDeliveries = "DELETE FROM wh_inbox WHERE handler_name = '" +
                                                   std::string(kRefusedDeliveryHandler) +
                                                   "' AND dead_lettered_at < ?1";
// ?1 cut-off ?2 this instance (never purged: it is alive)
inline const std::string kPurgeInstances =
    "DELETE FROM wh_service_instances WHERE last_heartbeat_at < ?1 AND instance_id <> ?2";

}  // namespace whizbang::sqlite::sql
