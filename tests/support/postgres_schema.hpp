// PostgreSQL schemas for tests, on the run's throwaway server (tests/support/postgres-server.sh,
// started by CTest as the `postgres` fixture; WHIZBANG_PG_CONNINFO names it).
//
//   std::string conninfo = whizbang_test::fresh_postgres_schema();   // "" and a test failure
//   auto store = whizbang::PostgresWorkStore::open(conninfo, options);  //   when no server
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace whizbang_test {

// The run's server; empty (with a failure naming the fix) when the variable is unset.
inline std::string postgres_conninfo() {
  const char* conninfo = std::getenv("WHIZBANG_PG_CONNINFO");
#ifdef WHIZBANG_TEST_PG_CONNINFO
  // A suite with both servers has the conninfo compiled in (tests/CMakeLists.txt).
  if (conninfo == nullptr) conninfo = WHIZBANG_TEST_PG_CONNINFO;
#endif
  if (conninfo == nullptr || *conninfo == '\0') {
    ADD_FAILURE() << "WHIZBANG_PG_CONNINFO is not set: run the suite through ctest, which starts "
                     "a throwaway PostgreSQL server, or point the variable at a server";
    return {};
  }
  return conninfo;
}

// `conninfo` with `search_path` set to `schema` (a URI or key=value conninfo), and the session
// settings `settings` (each "name=value") after it.
inline std::string with_search_path(const std::string& conninfo, const std::string& schema,
                                    const std::vector<std::string>& settings = {}) {
  const bool uri = conninfo.rfind("postgres", 0) == 0;
  std::string options = uri ? "-csearch_path%3D" + schema : "-csearch_path=" + schema;
  for (const std::string& setting : settings) {
    std::string encoded = setting;
    if (uri) encoded.replace(encoded.find('='), 1, "%3D");
    options += (uri ? "%20-c" : " -c") + encoded;
  }
  if (uri)
    return conninfo + (conninfo.find('?') == std::string::npos ? "?" : "&") + "options=" + options;
  return conninfo + " options='" + options + "'";
}

// Runs `sql` on the run's server; false (and a test failure) when it fails.
inline bool postgres_admin(const std::string& conninfo, const std::string& sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> admin(PQconnectdb(conninfo.c_str()), &PQfinish);
  if (PQstatus(admin.get()) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot reach the test PostgreSQL server: " << PQerrorMessage(admin.get());
    return false;
  }
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(admin.get(), sql.c_str()), &PQclear);
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    ADD_FAILURE() << sql << ": " << PQerrorMessage(admin.get());
    return false;
  }
  return true;
}

// The number `sql` (a one-value query such as SELECT count(*)) answers on `conninfo`; -1 when the
// query fails.
inline long postgres_scalar(const std::string& conninfo, const std::string& sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(conninfo.c_str()), &PQfinish);
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), sql.c_str()), &PQclear);
  return PQresultStatus(result.get()) == PGRES_TUPLES_OK && PQntuples(result.get()) == 1
             ? std::atol(PQgetvalue(result.get(), 0, 0))
             : -1;
}

// Creates a new empty schema and returns a conninfo whose tables go there (with the session
// settings `settings`, each "name=value": the run's server commits without flushing, say).
inline std::string fresh_postgres_schema(const std::vector<std::string>& settings = {}) {
  const std::string conninfo = postgres_conninfo();
  if (conninfo.empty()) return {};
  static std::atomic<int> counter{0};
  const std::string schema =
      "t" + std::to_string(::getpid()) + "_" + std::to_string(counter.fetch_add(1));
  if (!postgres_admin(conninfo,
                      "DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema)) {
    return {};
  }
  return with_search_path(conninfo, schema, settings);
}

// The schema for `key` (created on first use): stores opened with one key share their tables, as
// two instances of one service share a database. Keys are hashed into a schema name, so any text
// will do (a test's temp dir and a service name, say).
inline std::string shared_postgres_schema(const std::string& key) {
  const std::string conninfo = postgres_conninfo();
  if (conninfo.empty()) return {};
  const std::string schema = "k" + std::to_string(std::hash<std::string>{}(key));
  if (!postgres_admin(conninfo, "CREATE SCHEMA IF NOT EXISTS " + schema)) return {};
  return with_search_path(conninfo, schema);
}

}  // namespace whizbang_test
