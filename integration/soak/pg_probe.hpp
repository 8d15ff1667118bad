// The soak's view of its PostgreSQL server: one libpq connection to the run's database, queries
// qualified by schema (the run has one schema per service), and what the report reads from it.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace soak {

// `conninfo` with its search_path set to `schema` (a URI or a key=value conninfo): where a
// service process keeps its rows (WHIZBANG_CRASH_STORES, crash_restart/store_location.hpp).
std::string with_search_path(const std::string& conninfo, const std::string& schema);

// Rows still owed by a service: outbox and inbox rows not processed, perspective events not
// applied (summed over the schemas asked).
struct Backlog {
  std::int64_t outbox = 0;
  std::int64_t inbox = 0;
  std::int64_t perspective = 0;
  std::int64_t total() const { return outbox + inbox + perspective; }
};

class PgProbe {
 public:
  static absl::StatusOr<std::unique_ptr<PgProbe>> connect(const std::string& conninfo);
  ~PgProbe();
  PgProbe(const PgProbe&) = delete;
  PgProbe& operator=(const PgProbe&) = delete;

  absl::Status execute(const std::string& sql);
  absl::StatusOr<std::vector<std::vector<std::string>>> rows(const std::string& sql);
  // The first column of the only row (0 for NULL).
  absl::StatusOr<std::int64_t> scalar(const std::string& sql);

  // The server's write-ahead log on disk (pg_ls_waldir), bytes.
  absl::StatusOr<std::int64_t> wal_bytes();
  // pg_total_relation_size (table, indexes, TOAST) of each wh_* table, summed over `schemas`.
  absl::StatusOr<std::map<std::string, std::int64_t>> store_table_bytes(
      const std::vector<std::string>& schemas);
  absl::StatusOr<Backlog> backlog(const std::vector<std::string>& schemas);

 private:
  explicit PgProbe(PGconn* connection) : connection_(connection) {}
  PGconn* connection_;
};

}  // namespace soak
