// Sqlite SQL of the dead-letter operations role (store/dead_letter_shapes.hpp), and the table
// discarded dead letters are kept in.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "dead_letter_shapes.hpp"
#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql::dead_letters {

namespace dl = store_internal::dead_letter_shapes;

inline const std::string kPage = dl::page<Dialect>("instr");
inline const std::string kGroups = dl::groups<Dialect>("instr");
inline const std::string kKeepDiscarded = dl::keep_discarded<Dialect>();
// ?1 outbox id. A discarded row's id must stay a duplicate: SQLite's outbox deduplicates through
// tombstones, which only publication wrote.
inline const std::string kTombstoneDiscardedOutbox =
    "INSERT INTO wh_outbox_tombstones (message_id, stored_at) "
    "SELECT message_id, created_at FROM wh_outbox WHERE message_id = ?1 "
    "AND dead_lettered_at IS NOT NULL ON CONFLICT (message_id) DO NOTHING";
inline const std::string kDiscarded = dl::discarded<Dialect>();
inline const std::string kInvocations = dl::invocations<Dialect>();
inline const std::string kBacklog = dl::backlog();

// Per DeadLetterSource, by its number.
template <std::string (*Make)(DeadLetterSource)>
const std::array<std::string, 5> per_source() {
  std::array<std::string, 5> statements;
  for (int source = 0; source < 5; ++source) {
    statements[static_cast<std::size_t>(source)] = Make(static_cast<DeadLetterSource>(source));
  }
  return statements;
}
inline const std::array<std::string, 5> kEnvelope = per_source<dl::envelope<Dialect>>();
inline const std::array<std::string, 5> kRequeue = per_source<dl::requeue<Dialect>>();
inline const std::array<std::string, 5> kRemove = per_source<dl::remove<Dialect>>();

// Discarded dead letters: kept with the reason and the time, out of every work table.
constexpr std::string_view kDiscardedSchema = R"sql(
CREATE TABLE wh_discarded_dead_letters (
  source INTEGER NOT NULL,
  id BLOB NOT NULL,
  message_type TEXT NOT NULL,
  target TEXT NOT NULL,
  stream_id BLOB,
  attempts INTEGER NOT NULL,
  error TEXT NOT NULL,
  failure_reason INTEGER NOT NULL,
  lettered_at INTEGER NOT NULL,
  discarded_at INTEGER NOT NULL,
  discard_reason TEXT NOT NULL,
  envelope TEXT NOT NULL,
  PRIMARY KEY (source, id)
);
CREATE INDEX wh_discarded_dead_letters_at ON wh_discarded_dead_letters (discarded_at);
)sql";

}  // namespace whizbang::sqlite::sql::dead_letters
