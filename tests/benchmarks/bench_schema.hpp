// Schemas on the PostgreSQL benchmarks' server (WHIZBANG_PG_CONNINFO), "bench_<name>" each.
#pragma once

#include <libpq-fe.h>

#include <cstdlib>
#include <string>

namespace bench {

// The conninfo of the benchmark schema `name` as it is (fresh_schema creates it).
inline std::string schema_conninfo(const std::string& name) {
  const std::string base(std::getenv("WHIZBANG_PG_CONNINFO"));
  return base + (base.find('?') == std::string::npos ? "?" : "&") +
         "options=-csearch_path%3Dbench_" + name;
}

// Drops and creates the schema `name`: the conninfo that uses it (empty without a server).
inline std::string fresh_schema(const std::string& name) {
  const char* conninfo = std::getenv("WHIZBANG_PG_CONNINFO");
  if (conninfo == nullptr) return {};
  PGconn* admin = PQconnectdb(conninfo);
  const std::string schema = "bench_" + name;
  PQclear(PQexec(
      admin, ("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema).c_str()));
  PQfinish(admin);
  return schema_conninfo(name);
}

}  // namespace bench
