// PostgreSQL SQL of the dead-letter operations role (store/dead_letter_shapes.hpp), and the table
// discarded dead letters are kept in.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "dead_letter_shapes.hpp"
#include "postgres/sql/dialect.hpp"

namespace whizbang::postgres::sql::dead_letters {

namespace dl = store_internal::dead_letter_shapes;

inline const std::string kPage = dl::page<Dialect>("strpos");
inline const std::string kGroups = dl::groups<Dialect>("strpos");
inline const std::string kKeepDiscarded = dl::keep_discarded<Dialect>();
// None: every emitted id stays in wh_outbox_ids (dialect.hpp), so a discarded row's id is already
// a duplicate.
inline const std::string kTombstoneDiscardedOutbox;
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
  id uuid NOT NULL,
  message_type TEXT NOT NULL,
  target TEXT NOT NULL,
  stream_id uuid,
  attempts INTEGER NOT NULL,
  error TEXT NOT NULL,
  failure_reason INTEGER NOT NULL,
  lettered_at bigint NOT NULL,
  discarded_at bigint NOT NULL,
  discard_reason TEXT NOT NULL,
  envelope TEXT NOT NULL,
  PRIMARY KEY (source, id)
);
CREATE INDEX wh_discarded_dead_letters_at ON wh_discarded_dead_letters (discarded_at);
)sql";

}  // namespace whizbang::postgres::sql::dead_letters
