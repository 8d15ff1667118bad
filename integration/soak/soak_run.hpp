// One soak run: two service processes (sales, fulfilment: the crash harness's services,
// integration/crash_restart) over RabbitMQ on PostgreSQL, fed orders at a steady rate for the
// run's duration while one of them is killed and restarted every few minutes; every interval a
// report row; then the drain, a clean stop and the account (docs/guide/14-running-services.md,
// "Soak").
#pragma once

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "exactly_once.hpp"
#include "feeder.hpp"
#include "order_ledger.hpp"
#include "pg_probe.hpp"
#include "report.hpp"
#include "service_processes.hpp"
#include "soak_options.hpp"

namespace soak {

class SoakRun {
 public:
  explicit SoakRun(SoakOptions options);
  // 0: PASS; 1: FAIL (the report says why); 2: the run could not be set up; 130: interrupted.
  int run(const volatile std::sig_atomic_t& interrupted);

 private:
  absl::Status set_up();
  double now_s() const;
  // The orders the sales order book shows shipped since the last poll.
  void poll_done();
  void sample_processes(double now_s);
  void report_row(double now_s);
  // Waits for every order sent to come back and nothing to be owed; false after the timeout.
  bool drain(const volatile std::sig_atomic_t& interrupted);
  std::vector<std::string> judge();
  // <out>/orders.tsv: each order's send and return times (the latencies behind the report's);
  // <out>/kills.gp: a dashed line at each kill, for the plot.
  void write_orders() const;

  SoakOptions options_;
  std::filesystem::path data_dir_;
  RunSchemas schemas_;
  std::unique_ptr<PgProbe> probe_;
  std::unique_ptr<Feeder> feeder_;
  std::unique_ptr<ServiceProcesses> processes_;
  std::unique_ptr<Report> report_;
  OrderLedger ledger_;
  std::chrono::steady_clock::time_point started_;
  std::int64_t done_watermark_us_ = 0;
  std::vector<std::int64_t> backlogs_;
  std::string events_;  // of the current interval
  std::string kill_lines_;
  int send_failures_ = 0;
  std::vector<std::string> failures_;
};

}  // namespace soak
