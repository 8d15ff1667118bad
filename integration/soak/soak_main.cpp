// soak_driver: `./dev.sh soak [minutes]` (docs/guide/14-running-services.md, "Soak"). Two service
// processes over RabbitMQ on PostgreSQL at a steady rate, one of them killed and restarted every
// few minutes; a report row every minute (RSS and fds of each process, WAL and store table sizes,
// backlog, end-to-end latency) and a verdict: exit 1 when a process grew, the backlog kept
// growing, or an order was lost or handled twice. The flags: soak_options.hpp.
#include <csignal>
#include <cstdio>
#include <string>

#include "soak_options.hpp"
#include "soak_run.hpp"

namespace {

volatile std::sig_atomic_t interrupted = 0;

void on_interrupt(int) { interrupted = 1; }

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<soak::SoakOptions> options = soak::parse_soak_options(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr,
                 "soak_driver: %s\nusage: soak_driver --amqp URL --postgres CONNINFO --out DIR "
                 "[--minutes N | --seconds N] [--rate ORDERS_PER_S] [--kill-every S] "
                 "[--report-every S] [--warm-up S] [--sample-every S] [--drain-timeout S] "
                 "[--growth-limit PERCENT] [--worker PATH]\n",
                 std::string(options.status().message()).c_str());
    return 2;
  }
  // The driver stops its processes itself (they die with it in any case: PR_SET_PDEATHSIG).
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  return soak::SoakRun(*std::move(options)).run(interrupted);
}
