// The SQLite store's SqlSession (whizbang/store/sql_session.hpp): the user's statements on the
// store's own connection, through its transaction gate, so they join the transaction (and the
// savepoint) open on the calling thread and a failing one dooms it.
#pragma once

#include <sqlite3.h>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "sqlite/statement.hpp"
#include "transaction_gate.hpp"
#include "whizbang/store/sql_session.hpp"

namespace whizbang::sqlite {

class SqliteSqlSession final : public SqlSession {
 public:
  SqliteSqlSession(Connection& connection, store_internal::TransactionGate& gate)
      : connection_(connection), gate_(gate) {}

  absl::StatusOr<std::int64_t> execute(std::string_view statement,
                                       std::span<const SqlParam> parameters) override;
  absl::StatusOr<SqlRows> query(std::string_view statement,
                                std::span<const SqlParam> parameters) override;
  using SqlSession::execute;
  using SqlSession::query;

 protected:
  absl::Status run_native(const std::function<absl::Status(NativeConnection)>& use) override;

 private:
  // The user's statements prepared once and reused; a few dozen distinct texts in practice, so
  // past kMaxStatements (text built per call, say) the cache starts over.
  static constexpr std::size_t kMaxStatements = 128;
  absl::StatusOr<sqlite3_stmt*> prepared(std::string_view statement);
  // Steps `statement` (bound) to its end; each row to `row` when given.
  absl::Status step(sqlite3_stmt* statement, std::string_view text, SqlRows* rows);

  Connection& connection_;
  store_internal::TransactionGate& gate_;
  absl::flat_hash_map<std::string, Statement> statements_;
};

}  // namespace whizbang::sqlite
