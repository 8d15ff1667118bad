#include "postgres/connection.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "postgres/error_text.hpp"

namespace whizbang::postgres {
namespace {

constexpr Oid kTextOid = 25;

// The highest $n in `sql`: how many parameters its statement declares.
int parameter_count(std::string_view sql) {
  int count = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    if (sql[i] != '$') continue;
    int number = 0;
    const auto [end, ec] = std::from_chars(sql.data() + i + 1, sql.data() + sql.size(), number);
    if (ec == std::errc()) count = std::max(count, number);
    i = static_cast<std::size_t>(end - sql.data()) - 1;
  }
  return count;
}

// Retryable conditions (another transaction won, the server is going away) are Unavailable.
absl::StatusCode code_of(std::string_view sqlstate) {
  if (sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "55P03" ||
      sqlstate.substr(0, 2) == "08" || sqlstate.substr(0, 3) == "57P") {
    return absl::StatusCode::kUnavailable;
  }
  if (sqlstate == "23505") return absl::StatusCode::kAlreadyExists;
  // Insufficient resources (disk full, out of memory, too many connections): the server's
  // condition, never one row's.
  if (sqlstate.substr(0, 2) == "53") return absl::StatusCode::kResourceExhausted;
  if (sqlstate.substr(0, 2) == "58") return absl::StatusCode::kUnavailable;  // system / I/O error
  if (sqlstate.substr(0, 2) == "22") return absl::StatusCode::kInvalidArgument;
  return absl::StatusCode::kInternal;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Connection>> Connection::open(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) return absl::ResourceExhaustedError("libpq could not allocate a connection");
  std::unique_ptr<Connection> connection(new Connection(conn));
  if (PQstatus(conn) != CONNECTION_OK) {
    return absl::UnavailableError(
        fmt::format("cannot connect to the PostgreSQL store: {}", one_line(PQerrorMessage(conn))));
  }
  // Notices ("relation already exists, skipping") are not errors: keep them off stderr.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  return connection;
}

Connection::~Connection() { PQfinish(conn_); }

std::string Connection::describe() const {
  const char* db = PQdb(conn_);
  const char* host = PQhost(conn_);
  return fmt::format("PostgreSQL store (database '{}' on '{}')", db != nullptr ? db : "",
                     host != nullptr ? host : "");
}

absl::Status Connection::error(const PGresult* result, std::string_view context) const {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  // One line (error_text.hpp): libpq's own text spreads over several.
  std::string text = result != nullptr ? result_error_text(result) : std::string();
  if (text.empty()) text = one_line(PQerrorMessage(conn_));
  const absl::StatusCode code = state != nullptr                   ? code_of(state)
                                : PQstatus(conn_) != CONNECTION_OK ? absl::StatusCode::kUnavailable
                                                                   : absl::StatusCode::kInternal;
  return absl::Status(
      code, fmt::format("{}: {} [{}]: {}", describe(), text,
                        state != nullptr ? state : "no sqlstate", context.substr(0, 160)));
}

namespace {

constexpr const char* kBegin = "BEGIN";
constexpr const char* kUnsynced = "SET LOCAL synchronous_commit = off";
constexpr const char* kSnapshot = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY";

}  // namespace

void Connection::begin_with_next_statement(bool synced) {
  // assign(), not clear() + push_back(): g++ 12 at -O3 warned falsely (-Warray-bounds) on the
  // push_back of a literal into the cleared vector.
  if (synced) {
    deferred_.assign({kBegin});
  } else {
    deferred_.assign({kBegin, kUnsynced});
  }
}

void Connection::begin_snapshot_with_next_statement() { deferred_.assign({kBegin, kSnapshot}); }

bool Connection::begin_deferred() const {
  return !deferred_.empty() && deferred_.front() == kBegin;
}

absl::Status Connection::finish(bool commit) {
  if (begin_deferred()) {  // the transaction never reached the server
    deferred_.clear();
    return absl::OkStatus();
  }
  if (!commit) deferred_.clear();  // undone by the rollback anyway
  return exec(commit ? "COMMIT" : "ROLLBACK");
}

absl::Status Connection::exec(const std::string& sql) {
  // Deferred statements go first, in the same simple query (one round trip).
  const std::string text =
      deferred_.empty() ? sql : absl::StrCat(absl::StrJoin(deferred_, "; "), "; ", sql);
  deferred_.clear();
  Result result(PQexec(conn_, text.c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return absl::OkStatus();
  return error(result.get(), text);
}

absl::StatusOr<const Connection::Prepared*> Connection::prepare(const std::string& sql,
                                                                const Params& params) {
  if (auto it = prepared_.find(sql); it != prepared_.end()) return &it->second;
  Prepared prepared{fmt::format("s{}", prepared_.size() + 1), parameter_count(sql)};
  std::vector<Oid> types(static_cast<std::size_t>(prepared.parameters), kTextOid);
  for (std::size_t i = 0; i < params.size() && i < types.size(); ++i) {
    if (params[i].binary_type != 0) types[i] = params[i].binary_type;
  }
  Result result(
      PQprepare(conn_, prepared.name.c_str(), sql.c_str(), prepared.parameters, types.data()));
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) return error(result.get(), sql);
  return &prepared_.emplace(sql, std::move(prepared)).first->second;
}

namespace {

// What PQexecPrepared and PQsendQueryPrepared take: one value per declared parameter (null for
// NULL, and for a parameter left unbound), with the lengths and formats of binary ones.
struct ParameterValues {
  ParameterValues(int parameters, const Connection::Params& params)
      : values(static_cast<std::size_t>(parameters), nullptr),
        lengths(values.size(), 0),
        formats(values.size(), 0) {
    for (std::size_t i = 0; i < params.size() && i < values.size(); ++i) {
      if (!params[i].value) continue;
      values[i] = params[i].value->data();
      lengths[i] = static_cast<int>(params[i].value->size());
      formats[i] = params[i].binary_type != 0 ? 1 : 0;
    }
  }
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
};

}  // namespace

absl::StatusOr<Result> Connection::run(const std::string& sql, const Params& params) {
  if (!deferred_.empty()) {  // a one-statement pipeline takes them along
    const Statement statement{&sql, &params};
    absl::StatusOr<std::vector<Result>> results = run_pipeline({&statement, 1});
    if (!results.ok()) return results.status();
    return std::move(results->front());
  }
  absl::StatusOr<const Prepared*> prepared = prepare(sql, params);
  if (!prepared.ok()) return prepared.status();
  const ParameterValues values((*prepared)->parameters, params);
  Result result(PQexecPrepared(conn_, (*prepared)->name.c_str(), (*prepared)->parameters,
                               values.values.data(), values.lengths.data(), values.formats.data(),
                               0));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return error(result.get(), sql);
  return result;
}

absl::StatusOr<std::vector<Result>> Connection::run_pipeline(
    std::span<const Statement> statements) {
  // Prepared first (each a round trip, once per connection): a pipeline then only executes.
  std::vector<const Prepared*> prepared;
  for (const Statement& statement : statements) {
    if (statement.unprepared_types != nullptr) {
      prepared.push_back(nullptr);
      continue;
    }
    absl::StatusOr<const Prepared*> one = prepare(*statement.sql, *statement.params);
    if (!one.ok()) return one.status();
    prepared.push_back(*one);
  }
  if (PQenterPipelineMode(conn_) == 0) return error(nullptr, "entering pipeline mode");
  // What was deferred (BEGIN, its settings, savepoints) travels first, unprepared; its results
  // are skipped.
  const std::vector<std::string> opening = std::exchange(deferred_, {});
  bool sent = true;
  for (const std::string& sql : opening) {
    sent = sent &&
           PQsendQueryParams(conn_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
  }
  for (std::size_t i = 0; sent && i < statements.size(); ++i) {
    if (const std::vector<Oid>* types = statements[i].unprepared_types; types != nullptr) {
      const int count = static_cast<int>(types->size());
      const ParameterValues values(count, *statements[i].params);
      sent = PQsendQueryParams(conn_, statements[i].sql->c_str(), count, types->data(),
                               values.values.data(), values.lengths.data(), values.formats.data(),
                               0) == 1;
      continue;
    }
    const ParameterValues values(prepared[i]->parameters, *statements[i].params);
    sent = PQsendQueryPrepared(conn_, prepared[i]->name.c_str(), prepared[i]->parameters,
                               values.values.data(), values.lengths.data(), values.formats.data(),
                               0) == 1;
  }
  sent = sent && PQpipelineSync(conn_) == 1;
  // Every result is read (an aborted pipeline too) up to the sync, so the connection leaves
  // pipeline mode clean; the first failure is the one reported.
  std::vector<Result> results;
  absl::Status failure = sent ? absl::OkStatus() : error(nullptr, "sending a pipeline");
  const std::size_t expected = statements.size() + opening.size();
  for (std::size_t i = 0; sent && i < expected; ++i) {
    Result result(PQgetResult(conn_));
    if (result.get() == nullptr) {
      failure = error(nullptr, "reading a pipeline");
      break;
    }
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);  // up to the query's end
    const bool opens = i < opening.size();
    const ExecStatusType status = PQresultStatus(result.get());
    if (failure.ok() && status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      failure = error(result.get(), opens ? opening[i] : *statements[i - opening.size()].sql);
    }
    if (!opens) results.push_back(std::move(result));
  }
  if (sent) {
    while (PGresult* rest = PQgetResult(conn_)) {
      const bool synced = PQresultStatus(rest) == PGRES_PIPELINE_SYNC;
      PQclear(rest);
      if (synced) break;
    }
  }
  PQexitPipelineMode(conn_);
  if (!failure.ok()) return failure;
  return results;
}

absl::StatusOr<Result> Connection::run_unprepared(const std::string& sql, const Params& params,
                                                  const std::vector<Oid>& types) {
  if (!deferred_.empty()) {  // a one-statement pipeline takes them along
    const Statement statement{&sql, &params, &types};
    absl::StatusOr<std::vector<Result>> results = run_pipeline({&statement, 1});
    if (!results.ok()) return results.status();
    return std::move(results->front());
  }
  const int count = static_cast<int>(types.size());
  const ParameterValues values(count, params);
  Result result(PQexecParams(conn_, sql.c_str(), count, types.data(), values.values.data(),
                             values.lengths.data(), values.formats.data(), 0));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return error(result.get(), sql);
  return result;
}

absl::Status Connection::flush_deferred() {
  if (deferred_.empty()) return absl::OkStatus();
  const std::string text = absl::StrJoin(deferred_, "; ");
  deferred_.clear();
  Result result(PQexec(conn_, text.c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return absl::OkStatus();
  return error(result.get(), text);
}

absl::Status Pipeline::run() {
  if (queries_.empty()) return absl::OkStatus();
  static const Connection::Params kNoParams;
  std::vector<Connection::Statement> statements;
  statements.reserve(before_.size() + queries_.size() + after_.size());
  for (const std::string& sql : before_) statements.push_back({&sql, &kNoParams});
  for (const Query& query : queries_) statements.push_back({&query.sql(), &query.params()});
  for (const std::string& sql : after_) statements.push_back({&sql, &kNoParams});
  absl::StatusOr<std::vector<Result>> results = connection_.run_pipeline(statements);
  if (!results.ok()) return results.status();
  for (std::size_t i = 0; i < queries_.size(); ++i)
    queries_[i].set_result(std::move((*results)[before_.size() + i]));
  return absl::OkStatus();
}

absl::Status Connection::configure_session(std::string sql) {
  if (absl::Status status = exec(sql); !status.ok()) return status;
  session_settings_.push_back(std::move(sql));
  return absl::OkStatus();
}

absl::Status Connection::reset_if_broken() {
  if (PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
  PQreset(conn_);
  prepared_.clear();
  deferred_.clear();
  if (PQstatus(conn_) != CONNECTION_OK) {
    return absl::UnavailableError(
        fmt::format("{}: reconnecting failed: {}", describe(), one_line(PQerrorMessage(conn_))));
  }
  for (const std::string& setting : session_settings_) {
    if (absl::Status status = exec(setting); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status Query::run() {
  absl::StatusOr<Result> result = connection_.run(sql_, params_);
  if (!result.ok()) return result.status();
  result_ = *std::move(result);
  ran_ = true;
  return absl::OkStatus();
}

absl::StatusOr<bool> Query::step() {
  if (!ran_) {
    if (absl::Status status = run(); !status.ok()) return status;
  }
  ++row_;
  return row_ < result_.rows();
}

int Query::changes() const {
  const char* tuples = PQcmdTuples(result_.get());
  int count = 0;
  if (tuples != nullptr) std::from_chars(tuples, tuples + std::strlen(tuples), count);
  return count;
}

std::int64_t Query::int64(int column) const {
  const char* text = value(column);
  std::int64_t number = 0;
  std::from_chars(text, text + std::strlen(text), number);
  return number;
}

Uuid Query::uuid(int column) const {
  if (is_null(column)) return Uuid();
  absl::StatusOr<Uuid> id = Uuid::parse(value(column));
  return id.ok() ? *id : Uuid();
}

}  // namespace whizbang::postgres
