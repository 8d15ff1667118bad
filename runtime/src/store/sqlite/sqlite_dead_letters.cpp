// SqliteDeadLetters: the dead-letter operations role on Sqlite (sqlite_dead_letters.hpp).
#include "sqlite/sqlite_dead_letters.hpp"

#include "sqlite/sql/dead_letter_sql.hpp"

namespace whizbang {

const store_internal::DeadLetterStatements& SqliteDeadLetterBackend::statements() {
  namespace sql = sqlite::sql::dead_letters;
  static const store_internal::DeadLetterStatements kStatements{
      sql::kPage,      sql::kGroups,      sql::kKeepDiscarded, sql::kTombstoneDiscardedOutbox,
      sql::kDiscarded, sql::kInvocations, sql::kBacklog,       sql::kEnvelope,
      sql::kRequeue,   sql::kRemove};
  return kStatements;
}

}  // namespace whizbang
