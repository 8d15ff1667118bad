// The soak's report: a markdown table with a row per report interval (printed as it comes and
// kept in <out>/report.md, rewritten at each row so a run cut short still leaves one), the same
// numbers as tab-separated columns for the plot (<out>/minutes.tsv, <out>/samples.tsv: see
// plot.gp), and at the end the incarnations and the verdict. (The run writes <out>/orders.tsv.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pg_probe.hpp"
#include "proc_sample.hpp"

namespace soak {

struct ServiceColumns {
  ProcessSample sample;
  int incarnation = 0;
};

struct ReportRow {
  double at_s = 0;
  int sent = 0;
  int done = 0;
  std::vector<ServiceColumns> services;  // in the order of the report's services
  std::int64_t wal_bytes = -1;
  std::map<std::string, std::int64_t> table_bytes;  // wh_* tables, both services
  Backlog backlog;
  std::size_t window_orders = 0;  // orders that came back in the interval
  double p50_ms = -1;
  double p99_ms = -1;
  std::string events;  // kills and restarts in the interval
};

class Report {
 public:
  Report(std::filesystem::path out_dir, std::vector<std::string> services, std::string settings);

  void add_row(ReportRow row);
  // One sample of each service's process (the plot's finer series).
  void add_samples(double at_s, const std::vector<ProcessSample>& samples);
  // The last sections: one line per process incarnation, then the verdict (failures empty:
  // PASS). Writes report.md for the last time.
  void finish(const std::vector<std::string>& incarnations, const std::vector<std::string>& notes,
              const std::vector<std::string>& failures);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::string header() const;
  std::string format(const ReportRow& row) const;
  std::string tables_section() const;
  void write(const std::string& tail) const;

  std::filesystem::path out_dir_;
  std::filesystem::path path_;
  std::vector<std::string> services_;
  std::string settings_;
  std::vector<ReportRow> rows_;
};

}  // namespace soak
