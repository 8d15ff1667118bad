// What one soak run does (docs/guide/14-running-services.md, "Soak"): how long, how fast, how
// often a service is killed, and where the report goes. Parsed from the driver's command line:
//
//   soak_driver --amqp URL --postgres CONNINFO --out DIR [--minutes N | --seconds N]
//               [--rate ORDERS_PER_S] [--kill-every S] [--report-every S] [--warm-up S]
//               [--sample-every S] [--drain-timeout S] [--growth-limit PERCENT] [--worker PATH]
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace soak {

struct SoakOptions {
  std::string amqp_url;
  std::string postgres;  // the server's database; the run makes two schemas in it
  std::filesystem::path out_dir;
  std::filesystem::path worker;  // crash_restart_worker, the service processes
  std::chrono::seconds duration{30 * 60};
  double rate = 20;  // orders offered per second (each: two messages across the broker)
  // A service killed with SIGKILL and restarted at each multiple, alternating sales, fulfilment.
  std::chrono::seconds kill_every{180};
  std::chrono::seconds report_every{60};  // one row of the table
  // The start of each process incarnation left out of the growth check (caches, pools, arenas).
  std::chrono::seconds warm_up{120};
  std::chrono::seconds sample_every{5};     // RSS and fds of each process
  std::chrono::seconds drain_timeout{180};  // after the last order, for the work to finish
  double growth_limit = 0.10;               // RSS or fds growth that fails the run (10%)
};

absl::StatusOr<SoakOptions> parse_soak_options(int argc, char** argv);

}  // namespace soak
