// ServicesAsProcessesTests: each service runs as processes of its own — two of sales, two of
// fulfilment, all on their worker threads with an executor for Detached stages and the default
// publish mode, competing for their service's rows in one SQLite file — joined through their
// stores. One process at a time is killed with SIGKILL at random moments while the others keep
// running, and restarted; at the end every process is stopped with SIGTERM and must stop
// cleanly. Then every order must be stored exactly once and every receptor's side effect must
// have happened once (more often only where a process died mid-handling).
//
// WHIZBANG_CRASH_ROUNDS (1; `./dev.sh chaos` runs 3), WHIZBANG_CRASH_PROCESS_ORDERS (400),
// WHIZBANG_CRASH_PROCESS_KILLS (20) and WHIZBANG_CRASH_SEED (else from the clock; printed) shape
// the run; each round uses the next seed.
#include <algorithm>
#include <random>

#include "serve_processes.hpp"

namespace {

using namespace crash_harness;
using namespace std::chrono_literals;

void run_round(int seed, int orders, int kills) {
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  std::printf("[ harness  ] WHIZBANG_CRASH_SEED=%d, %d orders, %d kills, 2 processes a service\n",
              seed, orders, kills);
  ServeProcesses processes(
      std::filesystem::path(CRASH_RESTART_DATA_DIR) /
          ("processes-" + std::to_string(static_cast<long>(getpid())) + "-" + std::to_string(seed)),
      {"sales", "sales", "fulfilment", "fulfilment"});
  processes.submit(orders);
  if (::testing::Test::HasFatalFailure()) return;
  for (std::size_t i = 0; i < processes.size(); ++i) processes.spawn(i);

  const std::vector<std::int64_t> targets =
      strike_targets(random, static_cast<std::size_t>(kills), orders, 0);
  std::uniform_int_distribution<std::size_t> victim(0, processes.size() - 1);
  std::uniform_int_distribution<int> jitter_ms(0, 3);
  const auto started = std::chrono::steady_clock::now();
  for (const std::int64_t target : targets) {
    processes.await_steps(target);
    if (::testing::Test::HasFatalFailure()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter_ms(random)));
    const std::size_t index = victim(random);
    processes.kill_and_restart(index);
    if (::testing::Test::HasFatalFailure()) return;
    std::printf("[ harness  ] kill %2zu: %-10s at %5lld of %d steps\n", processes.killed().size(),
                processes.role(index).c_str(),
                static_cast<long long>(steps_done(processes.stores())), 5 * orders);
  }
  processes.finish_and_check(orders, started);
}

TEST(ServicesAsProcessesTests, KilledOneAtATimeWhileTheOthersRun_EveryEffectExactlyOnce) {
  const int rounds = env_or("WHIZBANG_CRASH_ROUNDS", 1);
  const int orders = env_or("WHIZBANG_CRASH_PROCESS_ORDERS", 400);
  const int kills = env_or("WHIZBANG_CRASH_PROCESS_KILLS", 20);
  const int seed = seed_from_env_or_clock();
  for (int round = 0; round < rounds && !::testing::Test::HasFailure(); ++round) {
    run_round(seed + round, orders, kills);
  }
}

}  // namespace
