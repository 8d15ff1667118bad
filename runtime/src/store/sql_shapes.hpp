// The SQL shapes both SQL backends share, written once and spelled by a dialect.
//
// A dialect (store/sqlite/sql/dialect.hpp, store/postgres/sql/dialect.hpp) says how a parameter
// is written (`?1`; `$1::uuid`) and how a typed NULL is; each shape here takes it as a template
// argument, so a statement both backends run reads the same in both. What only one backend does
// (SQLite's status read, PostgreSQL's SKIP LOCKED claims and advisory locks) stays in its own
// sql/ directory.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "whizbang/retry/backoff.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::store_internal::sql_shapes {

inline const char* table(WorkSource source) {
  return source == WorkSource::Outbox ? "wh_outbox" : "wh_inbox";
}

// The numbers the SQL writes, spelled from the C++ enums they stand for.
inline std::string number(MessageStatus status) {
  return std::to_string(static_cast<std::uint32_t>(status));
}
inline std::string number(FailureReason reason) { return std::to_string(static_cast<int>(reason)); }

// `parts` one after another. (Appended, not `"…" + std::string` chains: GCC 12 reports false
// overflows where those are inlined.)
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string sql;
  (sql.append(std::string_view(parts)), ...);
  return sql;
}

// Completions and failures touch a row only while it is leased to this instance (?2) or to
// nobody: once another instance claimed it after a lapsed lease, it is theirs.
template <class D>
std::string owned_by_2() {
  return cat(" AND (instance_id IS NULL OR instance_id = ", D::param(2, "uuid"), ")");
}

// Every dead letter's row, as DeadLetterSource numbers them: source, id, type, target, stream,
// attempts, error, reason, dead-lettered at (a UNION ALL to select FROM, as `letters`).
inline std::string dead_letter_rows() {
  const auto source = [](DeadLetterSource kind) { return std::to_string(static_cast<int>(kind)); };
  return cat(
      "(SELECT ", source(DeadLetterSource::Outbox),
      " AS source, message_id AS id, message_type, COALESCE(destination, '(event store)') AS "
      "target, stream_id, attempts, error, failure_reason, dead_lettered_at FROM wh_outbox "
      "WHERE dead_lettered_at IS NOT NULL UNION ALL SELECT ",
      source(DeadLetterSource::Inbox),
      ", message_id, message_type, handler_name, stream_id, attempts, error, failure_reason, "
      "dead_lettered_at FROM wh_inbox WHERE dead_lettered_at IS NOT NULL UNION ALL SELECT ",
      source(DeadLetterSource::PerspectiveEvent),
      ", pe.event_work_id, COALESCE(es.event_type, ''), pe.perspective_name, pe.stream_id, "
      "pe.attempts, pe.error, pe.failure_reason, pe.dead_lettered_at FROM wh_perspective_events pe "
      "LEFT JOIN wh_event_store es ON es.event_id = pe.event_id "
      "WHERE pe.dead_lettered_at IS NOT NULL UNION ALL SELECT ",
      source(DeadLetterSource::LifecycleCompletion),
      ", lc.event_id, COALESCE(es.event_type, ''), 'PostAllPerspectives/PostLifecycle', "
      "lc.stream_id, lc.attempts, lc.error, lc.failure_reason, lc.dead_lettered_at "
      "FROM wh_lifecycle_completions lc LEFT JOIN wh_event_store es ON es.event_id = lc.event_id "
      "WHERE lc.dead_lettered_at IS NOT NULL UNION ALL SELECT ",
      source(DeadLetterSource::DetachedWork),
      ", work_id, message_type, receptor_id, NULL, attempts, error, failure_reason, "
      "dead_lettered_at FROM wh_detached_work WHERE dead_lettered_at IS NOT NULL) AS letters");
}
// Every dead letter, oldest first. ?1 limit
template <class D>
std::string dead_letters() {
  return cat("SELECT * FROM ", dead_letter_rows(), " ORDER BY dead_lettered_at, id LIMIT ",
             D::param(1, "bigint"));
}

// ---- the retry schedule and the dead-letter rule -------------------------------------------
// `backoff`'s wait before retry `attempts + 1` (`attempts`: the failures before this one), in
// micros: one WHEN per wait below the cap, the cap after. Exact for any Backoff without jitter.
inline std::string backoff_micros(const Backoff& backoff) {
  std::string sql = "CASE attempts";
  int retry = 1;
  for (; retry <= 64 && backoff.delay(retry) < backoff.cap; ++retry) {
    if (retry > 1 && backoff.delay(retry) == backoff.delay(retry - 1)) break;  // never grows
    sql += cat(" WHEN ", std::to_string(retry - 1), " THEN ",
               std::to_string(backoff.delay(retry).count()));
  }
  return cat(sql, " ELSE ", std::to_string(backoff.delay(retry).count()), " END");
}

// Shared by every failing table. ?5 now ?6 dead letter now ?7 max attempts (0: never) ?9 the
// retry policy's wait in micros (RetryDecision), or -1: kStoreRetryBackoff (work_item.hpp), now
// + its wait before retry attempts + 1.
template <class D>
std::string dead_letter_now() {
  return cat("(", D::param(6, "boolean"), " OR (", D::param(7, "integer"),
             " > 0 AND attempts + 1 >= ", D::param(7, "integer"), "))");
}
template <class D>
std::string failure_columns() {
  const std::string now = D::param(5, "bigint");
  return cat(
      "attempts = attempts + 1, instance_id = NULL, lease_expiry = NULL, "
      "dead_lettered_at = CASE WHEN ",
      dead_letter_now<D>(), " THEN ", now, " ELSE NULL END, scheduled_for = CASE WHEN ",
      dead_letter_now<D>(), " THEN NULL ELSE ", now, " + CASE WHEN ", D::param(9, "bigint"),
      " >= 0 THEN ", D::param(9, "bigint"), " ELSE ", backoff_micros(kStoreRetryBackoff),
      " END END");
}
// A failure's error and reason; the reason becomes MaxAttemptsExceeded on the last attempt.
// ?4 error ?6 dead letter now ?7 max attempts ?8 reason.
template <class D>
std::string failure_reason_columns() {
  return cat("error = ", D::param(4, "text"), ", failure_reason = CASE WHEN NOT ",
             D::param(6, "boolean"), " AND ", D::param(7, "integer"),
             " > 0 AND attempts + 1 >= ", D::param(7, "integer"), " THEN ",
             number(FailureReason::MaxAttemptsExceeded), " ELSE ", D::param(8, "integer"),
             " END, ");
}

// ---- outbox and inbox rows ------------------------------------------------------------------
// ?1 id ?2 instance ?3 flags ?4 now
template <class D>
std::string complete_row(WorkSource source) {
  const std::string flags = D::param(3, "integer");
  const std::string now = D::param(4, "bigint");
  std::string sql = cat("UPDATE ", table(source), " SET status = status | ", flags,
                        ", processed_at = CASE WHEN ", flags, " <> 0 THEN ", now,
                        " ELSE processed_at END, instance_id = NULL, lease_expiry = NULL");
  if (source == WorkSource::Outbox) {
    sql += cat(", published_at = CASE WHEN (", flags, " & ", number(MessageStatus::Published),
               ") <> 0 THEN ", now, " ELSE published_at END");
  }
  return cat(sql, " WHERE message_id = ", D::param(1, "uuid"), owned_by_2<D>());
}
// ?1 id ?2 instance ?3 due at (micros). A deferral (WorkDeferral): the lease released and the row
// due again at ?3; attempts, status, error and reason untouched.
template <class D>
std::string defer_row(WorkSource source) {
  return cat("UPDATE ", table(source),
             " SET instance_id = NULL, lease_expiry = NULL, scheduled_for = ",
             D::param(3, "bigint"), " WHERE message_id = ", D::param(1, "uuid"), owned_by_2<D>(),
             " AND processed_at IS NULL AND dead_lettered_at IS NULL");
}
// ?1 id ?2 instance ?3 flags ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason ?9 wait.
// Reaching max attempts turns the reason into MaxAttemptsExceeded (5). Returns what the failure
// counters and the dead-letter warning need. (dead_lettered_at itself, not "IS NOT NULL": SQLite
// 3.40's RETURNING answers that expression wrongly for a column the same UPDATE sets to NULL.)
template <class D>
std::string fail_row(WorkSource source) {
  return cat("UPDATE ", table(source), " SET status = status | ", D::param(3, "integer"), " | ",
             number(MessageStatus::Failed), ", ", failure_reason_columns<D>(), failure_columns<D>(),
             " WHERE message_id = ", D::param(1, "uuid"), owned_by_2<D>(),
             " RETURNING message_type, attempts, dead_lettered_at, stream_id");
}
// ?1 id ?2 instance ?3 lease expiry
template <class D>
std::string renew_row(WorkSource source) {
  return cat("UPDATE ", table(source), " SET lease_expiry = ", D::param(3, "bigint"),
             " WHERE message_id = ", D::param(1, "uuid"),
             " AND instance_id = ", D::param(2, "uuid"),
             " AND processed_at IS NULL AND dead_lettered_at IS NULL");
}
// ?1 id ?2 error ?3 now. A row the store cannot read (SerializationError) is dead-lettered.
template <class D>
std::string quarantine_row(WorkSource source) {
  return cat("UPDATE ", table(source), " SET status = status | ", number(MessageStatus::Failed),
             ", error = ", D::param(2, "text"),
             ", failure_reason = ", number(FailureReason::SerializationError),
             ", dead_lettered_at = ", D::param(3, "bigint"),
             ", scheduled_for = NULL, instance_id = NULL, lease_expiry = NULL WHERE message_id = ",
             D::param(1, "uuid"));
}

// ---- keyed failing tables -------------------------------------------------------------------
// ?1 key ?2 instance ?4 error ?5 now ?6 dead letter now ?7 max attempts ?8 reason ?9 wait. `set`
// opens the SET list (a status change, or nothing); `returning`: type, attempts, dead letter,
// stream.
template <class D>
std::string fail_keyed(std::string_view table, std::string_view set, std::string_view key,
                       std::string_view returning) {
  return cat("UPDATE ", table, " SET ", set, failure_reason_columns<D>(), failure_columns<D>(),
             " WHERE ", key, " = ", D::param(1, "uuid"), owned_by_2<D>(), " RETURNING ", returning);
}
template <class D>
std::string fail_perspective_work() {
  return fail_keyed<D>("wh_perspective_events",
                       cat("status = status | ", number(MessageStatus::Failed), ", "),
                       "event_work_id", "perspective_name, attempts, dead_lettered_at, stream_id");
}
template <class D>
std::string fail_lifecycle_work() {
  return fail_keyed<D>("wh_lifecycle_completions", "", "event_id",
                       "'PostLifecycle', attempts, dead_lettered_at, stream_id");
}
template <class D>
std::string fail_detached_work() {
  return fail_keyed<D>("wh_detached_work", "", "work_id",
                       cat("message_type, attempts, dead_lettered_at, ", D::kNullUuid));
}

// ---- dead letters and retention -------------------------------------------------------------
// Requeue: a fresh set of attempts, due now; the last error stays for the record. ?1 id, or NULL
// for every dead letter of the table.
template <class D>
std::string requeue(std::string_view table, std::string_view key) {
  return cat(
      "UPDATE ", table,
      " SET dead_lettered_at = NULL, attempts = 0, scheduled_for = NULL, instance_id = NULL, "
      "lease_expiry = NULL WHERE dead_lettered_at IS NOT NULL AND (",
      D::param(1, "uuid"), " IS NULL OR ", key, " = ", D::param(1, "uuid"), ")");
}
// ?1 cut-off (micros): rows of `table` whose `column` is older.
template <class D>
std::string purge_older(std::string_view table, std::string_view column) {
  return cat("DELETE FROM ", table, " WHERE ", column, " < ", D::param(1, "bigint"));
}

// ---- row reads ------------------------------------------------------------------------------
// Each list is the columns one decoder of row_decoding.hpp reads, in its order. The work store
// and the inspector select the same lists, so a row reads the same through both; the inspector
// reads a column an older schema lacks as NULL (`select_columns`).
using ColumnList = std::span<const std::string_view>;
inline constexpr std::string_view kOutboxRowColumns[] = {
    "message_id",     "destination", "message_type",    "event_data",    "scope",
    "stream_id",      "is_event",    "status",          "attempts",      "error",
    "failure_reason", "instance_id", "lease_expiry",    "scheduled_for", "processed_at",
    "published_at",   "created_at",  "dead_lettered_at"};
// An inbox row is never published: NULL stands in for published_at.
inline constexpr std::string_view kInboxRowColumns[] = {
    "message_id",     "handler_name", "message_type",    "event_data",    "source_service_id",
    "stream_id",      "is_event",     "status",          "attempts",      "error",
    "failure_reason", "instance_id",  "lease_expiry",    "scheduled_for", "processed_at",
    "NULL",           "received_at",  "dead_lettered_at"};
inline constexpr std::string_view kEventRowColumns[] = {
    "event_id", "stream_id", "event_type", "event_data", "metadata", "version", "created_at"};
inline constexpr std::string_view kPerspectiveEventRowColumns[] = {
    "event_work_id",    "stream_id",      "perspective_name", "event_id", "instance_id",
    "lease_expiry",     "status",         "attempts",         "error",    "scheduled_for",
    "dead_lettered_at", "failure_reason", "stream_version"};
inline constexpr std::string_view kReceptorInvocationRowColumns[] = {
    "message_id", "receptor_id",  "service_name", "perspective",
    "stage",      "completed_at", "duration_us"};

}  // namespace whizbang::store_internal::sql_shapes
