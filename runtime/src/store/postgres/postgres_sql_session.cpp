#include "postgres/postgres_sql_session.hpp"

#include <string>
#include <vector>

#include "fmt/format.h"

namespace whizbang::postgres {
namespace {

// Type oids of the parameters the session binds (pg_type.h).
constexpr Oid kInfer = 0;
constexpr Oid kBool = 16;
constexpr Oid kBytea = 17;
constexpr Oid kInt8 = 20;
constexpr Oid kInt2 = 21;
constexpr Oid kInt4 = 23;
constexpr Oid kFloat4 = 700;
constexpr Oid kFloat8 = 701;

struct Bound {
  Connection::Params values;
  std::vector<Oid> types;
};

Bound bind(std::span<const SqlParam> parameters) {
  Bound bound;
  for (const SqlParam& parameter : parameters) {
    const SqlValue& value = parameter.value();
    Connection::Param param;
    Oid type = kInfer;
    if (const auto* number = std::get_if<std::int64_t>(&value)) {
      param.value =
          parameter.is_boolean() ? (*number != 0 ? "true" : "false") : std::to_string(*number);
      type = parameter.is_boolean() ? kBool : kInt8;
    } else if (const auto* real = std::get_if<double>(&value)) {
      param.value = fmt::format("{}", *real);  // shortest text that reads back the same
      type = kFloat8;
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      param.value = *text;
    } else if (const auto* bytes = std::get_if<SqlBlob>(&value)) {
      param.value = std::string(bytes->begin(), bytes->end());
      param.binary_type = kBytea;
      type = kBytea;
    }
    bound.values.push_back(std::move(param));
    bound.types.push_back(type);
  }
  return bound;
}

SqlValue field_value(PGresult* result, int row, int column) {
  if (PQgetisnull(result, row, column) != 0) return std::monostate{};
  const char* text = PQgetvalue(result, row, column);
  const std::string_view value(text, static_cast<std::size_t>(PQgetlength(result, row, column)));
  switch (PQftype(result, column)) {
    case kBool:
      return std::int64_t{value == "t" ? 1 : 0};
    case kInt2:
    case kInt4:
    case kInt8:
      return std::int64_t{std::strtoll(text, nullptr, 10)};
    case kFloat4:
    case kFloat8:
      return std::strtod(text, nullptr);
    case kBytea: {
      std::size_t length = 0;
      unsigned char* bytes = PQunescapeBytea(reinterpret_cast<const unsigned char*>(text), &length);
      if (bytes == nullptr) return std::string(value);
      SqlBlob blob(bytes, bytes + length);
      PQfreemem(bytes);
      return blob;
    }
    default:  // text, numeric, uuid, dates, json, …: as PostgreSQL writes them
      return std::string(value);
  }
}

}  // namespace

absl::StatusOr<Result> PostgresSqlSession::run(std::string_view statement,
                                               std::span<const SqlParam> parameters) {
  const Bound bound = bind(parameters);
  return connection_.run_unprepared(std::string(statement), bound.values, bound.types);
}

absl::StatusOr<std::int64_t> PostgresSqlSession::execute(std::string_view statement,
                                                         std::span<const SqlParam> parameters) {
  if (absl::Status open = gate_.require_explicit_transaction("SqlSession::execute"); !open.ok()) {
    return open;
  }
  return gate_.run([&]() -> absl::StatusOr<std::int64_t> {
    absl::StatusOr<Result> result = run(statement, parameters);
    if (!result.ok()) return result.status();
    const char* changed = PQcmdTuples(result->get());
    return std::int64_t{changed != nullptr && *changed != '\0' ? std::atoll(changed) : 0};
  });
}

absl::StatusOr<SqlRows> PostgresSqlSession::query(std::string_view statement,
                                                  std::span<const SqlParam> parameters) {
  if (absl::Status open = gate_.require_explicit_transaction("SqlSession::query"); !open.ok()) {
    return open;
  }
  return gate_.run([&]() -> absl::StatusOr<SqlRows> {
    absl::StatusOr<Result> result = run(statement, parameters);
    if (!result.ok()) return result.status();
    PGresult* answer = result->get();
    SqlRows rows;
    const int columns = PQnfields(answer);
    for (int column = 0; column < columns; ++column) {
      rows.columns.emplace_back(PQfname(answer, column));
    }
    for (int row = 0; row < PQntuples(answer); ++row) {
      std::vector<SqlValue> values;
      values.reserve(static_cast<std::size_t>(columns));
      for (int column = 0; column < columns; ++column) {
        values.push_back(field_value(answer, row, column));
      }
      rows.rows.emplace_back(std::move(values));
    }
    return rows;
  });
}

absl::Status PostgresSqlSession::run_native(
    const std::function<absl::Status(NativeConnection)>& use) {
  if (absl::Status open = gate_.require_explicit_transaction("SqlSession::with_native");
      !open.ok()) {
    return open;
  }
  return gate_.run([&]() -> absl::Status {
    // The transaction and the handling's savepoint are on the server before the user's first
    // statement is.
    if (absl::Status flushed = connection_.flush_deferred(); !flushed.ok()) return flushed;
    PGconn* conn = connection_.raw();
    absl::Status used = use(NativeConnection{nullptr, conn});
    // What the user must not leave behind: each makes the transaction roll back.
    if (PQisBusy(conn) != 0 || PQpipelineStatus(conn) != PQ_PIPELINE_OFF) {
      // Read what is left, so the connection serves the rollback and the next transaction.
      while (PGresult* left = PQgetResult(conn)) PQclear(left);
      if (PQpipelineStatus(conn) != PQ_PIPELINE_OFF) {
        (void)PQpipelineSync(conn);
        while (PGresult* left = PQgetResult(conn)) PQclear(left);
        PQexitPipelineMode(conn);
      }
      return absl::FailedPreconditionError(
          "SqlSession::with_native left a statement running or a pipeline open on the "
          "connection; read every result before returning");
    }
    switch (PQtransactionStatus(conn)) {
      case PQTRANS_INTRANS:
        return used;
      case PQTRANS_INERROR:
        return used.ok() ? absl::FailedPreconditionError(
                               "a statement run through SqlSession::with_native failed; the "
                               "transaction must roll back")
                         : used;
      case PQTRANS_IDLE:
        return absl::FailedPreconditionError(
            "the connection's transaction was ended (COMMIT or ROLLBACK) inside "
            "SqlSession::with_native; only the handling or Transaction ends it");
      default:
        return absl::FailedPreconditionError(
            "SqlSession::with_native left the connection busy or broken");
    }
  });
}

}  // namespace whizbang::postgres
