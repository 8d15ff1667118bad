#include "pg_probe.hpp"

#include <cstdlib>

namespace soak {
namespace {

// A schema list for SQL: 'a', 'b' (the names are the driver's own, never input).
std::string quoted_list(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "'" : ", '") + name + "'";
  return list;
}

}  // namespace

std::string with_search_path(const std::string& conninfo, const std::string& schema) {
  if (conninfo.rfind("postgres", 0) == 0) {
    return conninfo + (conninfo.find('?') == std::string::npos ? "?" : "&") +
           "options=-csearch_path%3D" + schema;
  }
  return conninfo + " options='-csearch_path=" + schema + "'";
}

absl::StatusOr<std::unique_ptr<PgProbe>> PgProbe::connect(const std::string& conninfo) {
  PGconn* connection = PQconnectdb(conninfo.c_str());
  if (PQstatus(connection) != CONNECTION_OK) {
    const std::string why = PQerrorMessage(connection);
    PQfinish(connection);
    return absl::UnavailableError("cannot reach the PostgreSQL server: " + why);
  }
  return std::unique_ptr<PgProbe>(new PgProbe(connection));
}

PgProbe::~PgProbe() { PQfinish(connection_); }

absl::Status PgProbe::execute(const std::string& sql) {
  PGresult* result = PQexec(connection_, sql.c_str());
  const bool ok =
      PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK;
  PQclear(result);
  if (!ok) return absl::InternalError(sql + ": " + PQerrorMessage(connection_));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<std::string>>> PgProbe::rows(const std::string& sql) {
  PGresult* result = PQexec(connection_, sql.c_str());
  if (PQresultStatus(result) != PGRES_TUPLES_OK) {
    PQclear(result);
    return absl::InternalError(sql + ": " + PQerrorMessage(connection_));
  }
  std::vector<std::vector<std::string>> table(static_cast<std::size_t>(PQntuples(result)));
  for (int row = 0; row < PQntuples(result); ++row) {
    for (int column = 0; column < PQnfields(result); ++column) {
      table[static_cast<std::size_t>(row)].emplace_back(PQgetvalue(result, row, column));
    }
  }
  PQclear(result);
  return table;
}

absl::StatusOr<std::int64_t> PgProbe::scalar(const std::string& sql) {
  absl::StatusOr<std::vector<std::vector<std::string>>> table = rows(sql);
  if (!table.ok()) return table.status();
  if (table->size() != 1 || table->front().empty()) {
    return absl::InternalError(sql + ": not one value");
  }
  return std::atoll(table->front().front().c_str());
}

absl::StatusOr<std::int64_t> PgProbe::wal_bytes() {
  return scalar("SELECT coalesce(sum(size), 0) FROM pg_ls_waldir()");
}

absl::StatusOr<std::map<std::string, std::int64_t>> PgProbe::store_table_bytes(
    const std::vector<std::string>& schemas) {
  absl::StatusOr<std::vector<std::vector<std::string>>> table = rows(
      "SELECT c.relname, sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
      "ON n.oid = c.relnamespace WHERE n.nspname IN (" +
      quoted_list(schemas) +
      ") AND c.relkind = 'r' AND c.relname LIKE 'wh\\_%' GROUP BY c.relname ORDER BY c.relname");
  if (!table.ok()) return table.status();
  std::map<std::string, std::int64_t> sizes;
  for (const std::vector<std::string>& row : *table) sizes[row[0]] = std::atoll(row[1].c_str());
  return sizes;
}

absl::StatusOr<Backlog> PgProbe::backlog(const std::vector<std::string>& schemas) {
  Backlog backlog;
  for (const std::string& schema : schemas) {
    absl::StatusOr<std::vector<std::vector<std::string>>> counts =
        rows("SELECT (SELECT count(*) FROM " + schema +
             ".wh_outbox WHERE processed_at IS NULL), (SELECT count(*) FROM " + schema +
             ".wh_inbox WHERE processed_at IS NULL), (SELECT count(*) FROM " + schema +
             ".wh_perspective_events)");
    if (!counts.ok()) return counts.status();
    backlog.outbox += std::atoll((*counts)[0][0].c_str());
    backlog.inbox += std::atoll((*counts)[0][1].c_str());
    backlog.perspective += std::atoll((*counts)[0][2].c_str());
  }
  return backlog;
}

}  // namespace soak
