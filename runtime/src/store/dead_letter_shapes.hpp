// The SQL of the dead-letter operations role (whizbang/store/dead_letter_operations.hpp), shared
// by both SQL backends and spelled by their dialects (sql_shapes.hpp). Filters and the keyset
// cursor are in the SQL, so a page reads only its rows. Parameters of every filtered statement:
// ?1 source ?2 target ?3 message type ?4 reason ?5 error substring ?6 since ?7 until (micros)
// ?8 error's first line ?9 the same plus "\n" ?10 id; each NULL when not filtered on.
#pragma once

#include <string>
#include <string_view>

#include "sql_shapes.hpp"

namespace whizbang::store_internal::dead_letter_shapes {

using sql_shapes::cat;

// `find`: the dialect's substring position function (SQLite instr, PostgreSQL strpos).
template <class D>
std::string filter(std::string_view find) {
  const auto p = [](int n, std::string_view type) { return D::param(n, type); };
  return cat(" WHERE (", p(1, "integer"), " IS NULL OR source = ", p(1, "integer"), ") AND (",
             p(2, "text"), " IS NULL OR target = ", p(2, "text"), ") AND (", p(3, "text"),
             " IS NULL OR message_type = ", p(3, "text"), ") AND (", p(4, "integer"),
             " IS NULL OR failure_reason = ", p(4, "integer"), ") AND (", p(5, "text"),
             " IS NULL OR ", find, "(COALESCE(error, ''), ", p(5, "text"), ") > 0) AND (",
             p(6, "bigint"), " IS NULL OR dead_lettered_at >= ", p(6, "bigint"), ") AND (",
             p(7, "bigint"), " IS NULL OR dead_lettered_at <= ", p(7, "bigint"), ") AND (",
             p(8, "text"), " IS NULL OR COALESCE(error, '') = ", p(8, "text"),
             " OR substr(COALESCE(error, ''), 1, length(", p(9, "text"), ")) = ", p(9, "text"),
             ") AND (", p(10, "uuid"), " IS NULL OR id = ", p(10, "uuid"), ")");
}

// A page after the cursor ?11 dead-lettered at ?12 id ?13 source; ?14 limit.
template <class D>
std::string page(std::string_view find) {
  const auto p = [](int n, std::string_view type) { return D::param(n, type); };
  return cat("SELECT * FROM ", sql_shapes::dead_letter_rows(), filter<D>(find), " AND (",
             p(11, "bigint"), " IS NULL OR dead_lettered_at > ", p(11, "bigint"),
             " OR (dead_lettered_at = ", p(11, "bigint"), " AND (id > ", p(12, "uuid"),
             " OR (id = ", p(12, "uuid"), " AND source > ", p(13, "integer"),
             ")))) ORDER BY dead_lettered_at, id, source LIMIT ", p(14, "bigint"));
}

// Counted by their whole error; rows sharing a first line merge in C++. ?11 limit.
template <class D>
std::string groups(std::string_view find) {
  return cat(
      "SELECT source, target, message_type, failure_reason, COALESCE(error, ''), count(*), "
      "min(dead_lettered_at), max(dead_lettered_at) FROM ",
      sql_shapes::dead_letter_rows(), filter<D>(find),
      " GROUP BY source, target, message_type, failure_reason, error "
      "ORDER BY min(dead_lettered_at) LIMIT ",
      D::param(11, "bigint"));
}

// One dead letter's envelope, per source: ?1 key. Columns: message id, envelope, event data,
// metadata.
template <class D>
std::string envelope(DeadLetterSource source) {
  const std::string key = D::param(1, "uuid");
  switch (source) {
    case DeadLetterSource::Outbox:
      return cat("SELECT message_id, event_data, '', '' FROM wh_outbox WHERE message_id = ", key);
    case DeadLetterSource::Inbox:
      return cat("SELECT message_id, event_data, '', '' FROM wh_inbox WHERE message_id = ", key);
    case DeadLetterSource::PerspectiveEvent:
      return cat(
          "SELECT pe.event_id, '', COALESCE(es.event_data, ''), COALESCE(es.metadata, '') "
          "FROM wh_perspective_events pe LEFT JOIN wh_event_store es ON es.event_id = pe.event_id "
          "WHERE pe.event_work_id = ",
          key);
    case DeadLetterSource::LifecycleCompletion:
      return cat(
          "SELECT lc.event_id, '', COALESCE(es.event_data, ''), COALESCE(es.metadata, '') "
          "FROM wh_lifecycle_completions lc LEFT JOIN wh_event_store es "
          "ON es.event_id = lc.event_id WHERE lc.event_id = ",
          key);
    case DeadLetterSource::DetachedWork:
      break;
  }
  return cat("SELECT message_id, envelope, '', '' FROM wh_detached_work WHERE work_id = ", key);
}

inline std::string_view work_table(DeadLetterSource source) {
  switch (source) {
    case DeadLetterSource::Outbox:
      return "wh_outbox";
    case DeadLetterSource::Inbox:
      return "wh_inbox";
    case DeadLetterSource::PerspectiveEvent:
      return "wh_perspective_events";
    case DeadLetterSource::LifecycleCompletion:
      return "wh_lifecycle_completions";
    case DeadLetterSource::DetachedWork:
      break;
  }
  return "wh_detached_work";
}
inline std::string_view work_key(DeadLetterSource source) {
  switch (source) {
    case DeadLetterSource::Outbox:
    case DeadLetterSource::Inbox:
      return "message_id";
    case DeadLetterSource::PerspectiveEvent:
      return "event_work_id";
    case DeadLetterSource::LifecycleCompletion:
      return "event_id";
    case DeadLetterSource::DetachedWork:
      break;
  }
  return "work_id";
}

// ?1 key: requeues that one dead letter of the source's table.
template <class D>
std::string requeue(DeadLetterSource source) {
  return sql_shapes::requeue<D>(work_table(source), work_key(source));
}
// ?1 key: removes it from its work table, only while it is a dead letter.
template <class D>
std::string remove(DeadLetterSource source) {
  return cat("DELETE FROM ", work_table(source), " WHERE ", work_key(source), " = ",
             D::param(1, "uuid"), " AND dead_lettered_at IS NOT NULL");
}
// ?1 source ?2 id ?3 type ?4 target ?5 stream ?6 attempts ?7 error ?8 reason ?9 dead-lettered at
// ?10 discarded at ?11 discard reason ?12 envelope
template <class D>
std::string keep_discarded() {
  const auto p = [](int n, std::string_view type) { return D::param(n, type); };
  return cat(
      "INSERT INTO wh_discarded_dead_letters (source, id, message_type, target, stream_id, "
      "attempts, error, failure_reason, lettered_at, discarded_at, discard_reason, envelope) "
      "VALUES (",
      p(1, "integer"), ", ", p(2, "uuid"), ", ", p(3, "text"), ", ", p(4, "text"), ", ",
      p(5, "uuid"), ", ", p(6, "integer"), ", ", p(7, "text"), ", ", p(8, "integer"), ", ",
      p(9, "bigint"), ", ", p(10, "bigint"), ", ", p(11, "text"), ", ", p(12, "text"),
      ") ON CONFLICT (source, id) DO NOTHING");
}
// ?1 limit; DeadLetter's columns, then discarded at and the reason.
template <class D>
std::string discarded() {
  return cat(
      "SELECT source, id, message_type, target, stream_id, attempts, error, failure_reason, "
      "lettered_at, discarded_at, discard_reason FROM wh_discarded_dead_letters "
      "ORDER BY discarded_at DESC, id LIMIT ",
      D::param(1, "bigint"));
}

// ?1 message id: its receptor invocation records, oldest first (decode_invocation_record).
template <class D>
std::string invocations() {
  return cat(
      "SELECT receptor_id, stage, completed_at, duration_us, service_name, perspective "
      "FROM wh_receptor_invocations WHERE message_id = ",
      D::param(1, "uuid"), " ORDER BY completed_at, receptor_id");
}

inline std::string backlog() {
  return cat(
      "SELECT (SELECT count(*) FROM wh_outbox WHERE processed_at IS NULL AND dead_lettered_at IS "
      "NULL), (SELECT count(*) FROM wh_inbox WHERE processed_at IS NULL AND dead_lettered_at IS "
      "NULL), (SELECT count(*) FROM wh_perspective_events WHERE processed_at IS NULL AND "
      "dead_lettered_at IS NULL), (SELECT count(*) FROM ",
      sql_shapes::dead_letter_rows(), ")");
}

}  // namespace whizbang::store_internal::dead_letter_shapes
