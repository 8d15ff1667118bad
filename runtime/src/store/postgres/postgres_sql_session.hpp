// The PostgreSQL store's SqlSession (whizbang/store/sql_session.hpp): the user's statements on
// the store's own connection, through its transaction gate, so they join the transaction (and
// the savepoint) open on the calling thread and a failing one dooms it. Statements are not
// prepared (a store-lifetime cache would keep every text ever run); parameters go as text whose
// type the server infers from where each is used (integers as bigint, numbers as double
// precision, booleans as boolean, bytes as bytea); rows come back as text, read by their column
// types.
#pragma once

#include "postgres/connection.hpp"
#include "transaction_gate.hpp"
#include "whizbang/store/sql_session.hpp"

namespace whizbang::postgres {

class PostgresSqlSession final : public SqlSession {
 public:
  PostgresSqlSession(Connection& connection, store_internal::TransactionGate& gate)
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
  absl::StatusOr<Result> run(std::string_view statement, std::span<const SqlParam> parameters);

  Connection& connection_;
  store_internal::TransactionGate& gate_;
};

}  // namespace whizbang::postgres
