// crash_restart_worker: one incarnation of the harness's services.
//
//   crash_restart_worker <data-dir> submit <orders>        sends PlaceOrder order-0000.. (run once)
//   crash_restart_worker <data-dir> work <incarnation>     both services in this process, stepped
//                                                          until every worker is idle
//   crash_restart_worker <data-dir> serve <service> [amqp-url]
//                                                          one service (sales, fulfilment) on its
//                                                          worker threads until SIGTERM or SIGINT,
//                                                          over RabbitMQ when a URL is given; it
//                                                          creates <data-dir>/ready-<pid> once
//                                                          subscribed and started
//
// Each service keeps its rows in <data-dir>/<service>.db, or where WHIZBANG_CRASH_STORES says
// (crash_restart/store_location.hpp).
//
// The harness (crash_restart_test) kills `work` and `serve` processes with SIGKILL at random
// moments and starts the next one, so everything here must survive dying between any two
// instructions.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crash_restart/messages.hpp"
#include "crash_restart/service_process.hpp"
#include "crash_restart/services.hpp"
#include "whizbang_messages.hpp"

namespace {

constexpr int kMaxCycles = 100000;  // a livelock shows up as a failure, not a hang

int submit(crash_restart::Services& services, int orders) {
  for (int i = 0; i < orders; ++i) {
    crash_restart::PlaceOrder command;
    char order_id[32];
    std::snprintf(order_id, sizeof order_id, "order-%04d", i);
    command.order_id = order_id;
    command.quantity = 1 + i % 5;
    auto receipt = services.sales().dispatcher().send(command);
    if (!receipt.ok()) {
      std::fprintf(stderr, "send %s: %s\n", order_id, receipt.status().ToString().c_str());
      return 3;
    }
  }
  std::printf("submitted %d orders\n", orders);
  return 0;
}

int work(crash_restart::Services& services) {
  for (int cycle = 1; cycle <= kMaxCycles; ++cycle) {
    absl::StatusOr<bool> idle = services.run_cycle();
    if (!idle.ok()) {
      std::fprintf(stderr, "cycle %d: %s\n", cycle, idle.status().ToString().c_str());
      return 3;
    }
    if (*idle) {
      std::printf("idle after %d cycles\n", cycle);
      return 0;
    }
  }
  std::fprintf(stderr, "still busy after %d cycles\n", kMaxCycles);
  return 4;
}

// Runs one service on its threads until SIGTERM/SIGINT, then stops it cleanly (nothing in flight
// is lost: workers first, then detached work, then the deferred rows).
int serve(const char* data_dir, const std::string& service, const std::string& amqp_url) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  // Blocked before any thread starts, so every thread inherits the mask and sigwait() gets them.
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto process = crash_restart::ServiceProcess::start(data_dir, service, amqp_url);
  if (!process.ok()) {
    std::fprintf(stderr, "start %s: %s\n", service.c_str(), process.status().ToString().c_str());
    return 3;
  }
  const std::string ready = std::string(data_dir) + "/ready-" + std::to_string(getpid());
  if (std::FILE* file = std::fopen(ready.c_str(), "w")) std::fclose(file);
  int received = 0;
  sigwait(&stop_signals, &received);
  (*process)->stop();
  std::printf("%s stopped on signal %d\n", service.c_str(), received);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc >= 3 ? argv[2] : "";
  if (argc != 4 && !(argc == 5 && mode == "serve")) {
    std::fprintf(stderr,
                 "usage: %s <data-dir> submit <orders> | work <incarnation> | serve <service> "
                 "[amqp-url]\n",
                 argv[0]);
    return 2;
  }
  if (mode == "serve") return serve(argv[1], argv[3], argc == 5 ? argv[4] : "");
  const int number = std::atoi(argv[3]);
  if ((mode != "submit" && mode != "work") || number < 0) {
    std::fprintf(stderr, "unknown mode '%s' or bad number '%s'\n", argv[2], argv[3]);
    return 2;
  }
  // What `submit` stores is leased to it for a second only: the `serve` processes of the process
  // harness (on the real clock) take it up at once.
  auto services = mode == "work"
                      ? crash_restart::Services::open(argv[1], number)
                      : crash_restart::Services::open(argv[1], 0, std::chrono::seconds(1));
  if (!services.ok()) {
    std::fprintf(stderr, "open %s: %s\n", argv[1], services.status().ToString().c_str());
    return 3;
  }
  return mode == "submit" ? submit(**services, number) : work(**services);
}
