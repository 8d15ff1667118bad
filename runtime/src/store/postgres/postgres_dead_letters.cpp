// PostgresDeadLetters: the dead-letter operations role on PostgreSQL (postgres_dead_letters.hpp).
#include "postgres/postgres_dead_letters.hpp"

#include "postgres/sql/dead_letter_sql.hpp"

namespace whizbang {

const store_internal::DeadLetterStatements& PostgresDeadLetterBackend::statements() {
  namespace sql = postgres::sql::dead_letters;
  static const store_internal::DeadLetterStatements kStatements{
      sql::kPage,      sql::kGroups,      sql::kKeepDiscarded, sql::kTombstoneDiscardedOutbox,
      sql::kDiscarded, sql::kInvocations, sql::kBacklog,       sql::kEnvelope,
      sql::kRequeue,   sql::kRemove};
  return kStatements;
}

}  // namespace whizbang
