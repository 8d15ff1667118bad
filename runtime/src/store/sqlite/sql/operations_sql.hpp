// SQLite SQL: dead letters, requeue and the retention purge (the operations role).
#pragma once

#include <string>
#include <string_view>

#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql {

// ---- dead letters and retention ---------------------------------------------------------------
// Every dead letter, as DeadLetterSource numbers them: source, id, type, target, stream,
// attempts, error, reason, dead-lettered at. ?1 limit
inline const std::string kDeadLetters =
    std::string("SELECT * FROM (") + "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::Outbox)) +
    ", message_id, message_type, COALESCE(destination, '(event store)'), stream_id, "
    "attempts, error, failure_reason, dead_lettered_at FROM wh_outbox "
    "WHERE dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::Inbox)) +
    ", message_id, message_type, handler_name, stream_id, attempts, error, "
    "failure_reason, dead_lettered_at FROM wh_inbox WHERE dead_lettered_at IS NOT NULL "
    "UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::PerspectiveEvent)) +
    ", pe.event_work_id, COALESCE(es.event_type, ''), pe.perspective_name, pe.stream_id, "
    "pe.attempts, pe.error, pe.failure_reason, pe.dead_lettered_at FROM wh_perspective_events pe "
    "LEFT JOIN wh_event_store es ON es.event_id = pe.event_id "
    "WHERE pe.dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::LifecycleCompletion)) +
    ", lc.event_id, COALESCE(es.event_type, ''), 'PostAllPerspectives/PostLifecycle', "
    "lc.stream_id, lc.attempts, lc.error, lc.failure_reason, lc.dead_lettered_at "
    "FROM wh_lifecycle_completions lc LEFT JOIN wh_event_store es ON es.event_id = lc.event_id "
    "WHERE lc.dead_lettered_at IS NOT NULL UNION ALL "
    "SELECT " +
    std::to_string(static_cast<int>(DeadLetterSource::DetachedWork)) +
    ", work_id, message_type, receptor_id, NULL, attempts, error, "
    "failure_reason, dead_lettered_at FROM wh_detached_work WHERE dead_lettered_at IS NOT NULL) "
    "ORDER BY 9, 2 LIMIT ?1";
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
