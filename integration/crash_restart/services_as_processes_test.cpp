// ServicesAsProcessesTests: each service runs as processes of its own — two of sales, two of
// fulfilment, all on their worker threads with an executor for Detached stages and the default
// publish mode, competing for their service's rows in one SQLite file — joined through their
// stores. One process at a time is killed with SIGKILL at random moments while the others keep
// running, and restarted; at the end every process is stopped with SIGTERM and must stop
// cleanly. Then every order must be stored exactly once and every receptor's side effect must
// have happened once (more often only where a process died mid-handling).
//
// WHIZBANG_CRASH_ROUNDS (3), WHIZBANG_CRASH_PROCESS_ORDERS (400), WHIZBANG_CRASH_PROCESS_KILLS
// (20) and WHIZBANG_CRASH_SEED (else from the clock; printed) shape the run; each round uses the
// next seed.
#include <algorithm>
#include <array>
#include <random>

#include "harness_support.hpp"

namespace {

using namespace crash_harness;
using namespace std::chrono_literals;

constexpr std::array<const char*, 4> kRoles = {"sales", "sales", "fulfilment", "fulfilment"};

struct Processes {
  std::filesystem::path dir;
  std::filesystem::path journal;
  std::array<pid_t, kRoles.size()> pids{};
  std::set<pid_t> killed;

  Processes() = default;
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;
  // A failed assertion returns early: no worker may outlive the test.
  ~Processes() {
    for (const pid_t pid : pids) {
      if (pid <= 0) continue;
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

  void spawn(std::size_t index) {
    pids[index] = spawn_worker({dir.string(), "serve", kRoles[index]}, journal);
  }
  // Fails the test when a process ended by itself (it should only end when told to).
  void expect_all_running() {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      int code = 0;
      if (ended_within(pids[i], 0ms, code)) {
        ADD_FAILURE() << kRoles[i] << " process " << pids[i] << " ended by itself (" << code << ")";
        spawn(i);
      }
    }
  }
};

void run_round(int seed, int orders, int kills) {
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  std::printf("[ harness  ] WHIZBANG_CRASH_SEED=%d, %d orders, %d kills, 2 processes a service\n",
              seed, orders, kills);
  Processes processes;
  processes.dir =
      std::filesystem::path(CRASH_RESTART_DATA_DIR) /
      ("processes-" + std::to_string(static_cast<long>(getpid())) + "-" + std::to_string(seed));
  processes.journal = processes.dir / "effects.journal";
  std::filesystem::remove_all(processes.dir);
  std::filesystem::create_directories(processes.dir);
  const std::filesystem::path& dir = processes.dir;
  ASSERT_EQ(
      wait_for(spawn_worker({dir.string(), "submit", std::to_string(orders)}, processes.journal)),
      0);
  for (std::size_t i = 0; i < kRoles.size(); ++i) processes.spawn(i);

  std::vector<std::int64_t> targets(static_cast<std::size_t>(kills));
  std::uniform_int_distribution<std::int64_t> step(0, 5 * std::int64_t{orders} * 9 / 10);
  for (std::int64_t& target : targets) target = step(random);
  std::sort(targets.begin(), targets.end());
  std::uniform_int_distribution<std::size_t> victim(0, kRoles.size() - 1);
  std::uniform_int_distribution<int> jitter_ms(0, 3);
  const auto started = std::chrono::steady_clock::now();
  for (const std::int64_t target : targets) {
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (steps_done(dir) < target) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no progress towards " << target;
      processes.expect_all_running();
      std::this_thread::sleep_for(1ms);  // polling the stores' progress, not a synchronisation
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter_ms(random)));
    const std::size_t index = victim(random);
    const pid_t pid = processes.pids[index];
    kill(pid, SIGKILL);
    ASSERT_EQ(wait_for(pid), -SIGKILL) << kRoles[index] << " ended before it was killed";
    processes.killed.insert(pid);
    std::printf("[ harness  ] kill %2zu: %-10s at %5lld of %d steps\n", processes.killed.size(),
                kRoles[index], static_cast<long long>(steps_done(dir)), 5 * orders);
    processes.spawn(index);
  }
  // The survivors and successors finish: every step done and nothing owed anywhere.
  const auto deadline = std::chrono::steady_clock::now() + 180s;
  while (steps_done(dir) < 5 * std::int64_t{orders} || rows_owed(dir) > 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "stuck at " << steps_done(dir) << " of " << 5 * orders << " steps, " << rows_owed(dir)
        << " rows owed";
    processes.expect_all_running();
    std::this_thread::sleep_for(1ms);
  }
  for (const pid_t pid : processes.pids) kill(pid, SIGTERM);
  for (std::size_t i = 0; i < kRoles.size(); ++i) {
    EXPECT_EQ(wait_for(processes.pids[i]), 0) << kRoles[i] << " did not stop cleanly on SIGTERM";
    processes.pids[i] = 0;
  }
  std::printf("[ harness  ] %d orders in %.1f s, %zu processes killed\n", orders,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
              processes.killed.size());
  expect_every_order_stored_once(dir, orders);
  expect_every_effect_once(processes.journal, processes.killed, orders);
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

TEST(ServicesAsProcessesTests, KilledOneAtATimeWhileTheOthersRun_EveryEffectExactlyOnce) {
  const int rounds = env_or("WHIZBANG_CRASH_ROUNDS", 3);
  const int orders = env_or("WHIZBANG_CRASH_PROCESS_ORDERS", 400);
  const int kills = env_or("WHIZBANG_CRASH_PROCESS_KILLS", 20);
  const int seed = seed_from_env_or_clock();
  for (int round = 0; round < rounds && !::testing::Test::HasFailure(); ++round) {
    run_round(seed + round, orders, kills);
  }
}

}  // namespace
