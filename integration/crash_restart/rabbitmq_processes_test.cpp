// RabbitMqProcessesTests: the harness's services as separate processes joined by a RabbitMQ
// broker (two processes a service, competing for their service's queue and SQLite file). At
// seeded random moments one of them is killed with SIGKILL and restarted, the broker's VM is
// killed and restarted, or the broker is stopped gracefully and restarted, while the rest keep
// running. Afterwards every order must be stored exactly once and every receptor's side effect
// must have happened once (more often only where a process died mid-handling): what crossed the
// broker crossed it exactly once, whatever it went through.
//
// WHIZBANG_RMQ_CHAOS_ROUNDS (3), WHIZBANG_RMQ_CHAOS_ORDERS (300), WHIZBANG_RMQ_CHAOS_EVENTS (8)
// and WHIZBANG_CRASH_SEED (else from the clock; printed) shape the run; each round uses the next
// seed and a fresh broker.
#include <algorithm>
#include <array>
#include <random>

#include "harness_support.hpp"

namespace {

using namespace crash_harness;
using namespace std::chrono_literals;

constexpr std::array<const char*, 4> kRoles = {"fulfilment", "fulfilment", "sales", "sales"};

const std::string kAmqpUrl =
    "amqp://guest:guest@127.0.0.1:" + std::to_string(WHIZBANG_RMQ_CHAOS_PORT);

bool broker(const std::string& command, const std::filesystem::path& dir) {
  const std::string line = std::string(WHIZBANG_RMQ_SERVER_SCRIPT) + " " + command + " " +
                           dir.string() + " " + std::to_string(WHIZBANG_RMQ_CHAOS_PORT) +
                           " >/dev/null";
  return std::system(line.c_str()) == 0;
}

struct Run {
  std::filesystem::path dir;
  std::filesystem::path broker_dir;
  std::filesystem::path journal;
  std::array<pid_t, kRoles.size()> pids{};
  std::set<pid_t> killed;

  Run() = default;
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  // A failed assertion returns early: no worker and no broker may outlive the test.
  ~Run() {
    for (const pid_t pid : pids) {
      if (pid <= 0) continue;
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (!broker_dir.empty()) broker("down", broker_dir);
  }

  void spawn(std::size_t index) {
    pids[index] = spawn_worker({dir.string(), "serve", kRoles[index], kAmqpUrl}, journal);
  }
  // Waits until the process has subscribed (declared its queues) and started.
  void await_ready(std::size_t index) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    const std::filesystem::path ready = dir / ("ready-" + std::to_string(pids[index]));
    while (!std::filesystem::exists(ready)) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << kRoles[index] << " never ready";
      expect_all_running();
      std::this_thread::sleep_for(5ms);  // polling a file the process creates, not a sync
    }
  }
  void expect_all_running() {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      int code = 0;
      if (pids[i] > 0 && ended_within(pids[i], 0ms, code)) {
        ADD_FAILURE() << kRoles[i] << " process " << pids[i] << " ended by itself (" << code << ")";
        spawn(i);
      }
    }
  }
};

enum class Chaos { KillService, KillBroker, RestartBroker };

void run_round(int seed, int orders, int events) {
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  std::printf("[ harness  ] WHIZBANG_CRASH_SEED=%d, %d orders, %d chaos events, RabbitMQ\n", seed,
              orders, events);
  Run run;
  run.dir =
      std::filesystem::path(CRASH_RESTART_DATA_DIR) /
      ("rabbitmq-" + std::to_string(static_cast<long>(getpid())) + "-" + std::to_string(seed));
  run.journal = run.dir / "effects.journal";
  std::filesystem::remove_all(run.dir);
  std::filesystem::create_directories(run.dir);
  run.broker_dir = "/tmp/whizbang-rmq-chaos-" + std::to_string(WHIZBANG_RMQ_CHAOS_PORT);
  ASSERT_TRUE(broker("up", run.broker_dir));
  const std::filesystem::path& dir = run.dir;
  ASSERT_EQ(wait_for(spawn_worker({dir.string(), "submit", std::to_string(orders)}, run.journal)),
            0);
  // Fulfilment first: its queues must exist before sales publishes the events they bind.
  for (std::size_t i = 0; i < kRoles.size(); ++i) {
    run.spawn(i);
    run.await_ready(i);
  }

  // The chaos: mostly service kills, and at least one broker crash and one graceful restart.
  std::vector<Chaos> chaos(static_cast<std::size_t>(std::max(events, 2)), Chaos::KillService);
  chaos[0] = Chaos::KillBroker;
  chaos[1] = Chaos::RestartBroker;
  std::shuffle(chaos.begin(), chaos.end(), random);
  std::vector<std::int64_t> targets(chaos.size());
  std::uniform_int_distribution<std::int64_t> step(1, 5 * std::int64_t{orders} * 9 / 10);
  for (std::int64_t& target : targets) target = step(random);
  std::sort(targets.begin(), targets.end());
  std::uniform_int_distribution<std::size_t> victim(0, kRoles.size() - 1);
  std::uniform_int_distribution<int> jitter_ms(0, 3);
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t event = 0; event < chaos.size(); ++event) {
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (steps_done(dir) < targets[event]) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "no progress towards " << targets[event];
      run.expect_all_running();
      std::this_thread::sleep_for(1ms);  // polling the stores' progress, not a synchronisation
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter_ms(random)));
    const long long at = static_cast<long long>(steps_done(dir));
    switch (chaos[event]) {
      case Chaos::KillService: {
        const std::size_t index = victim(random);
        const pid_t pid = run.pids[index];
        kill(pid, SIGKILL);
        ASSERT_EQ(wait_for(pid), -SIGKILL) << kRoles[index] << " ended before it was killed";
        run.killed.insert(pid);
        std::printf("[ harness  ] SIGKILL %-10s at %5lld of %d steps\n", kRoles[index], at,
                    5 * orders);
        run.spawn(index);
        break;
      }
      case Chaos::KillBroker:
        std::printf("[ harness  ] SIGKILL broker  at %5lld of %d steps\n", at, 5 * orders);
        ASSERT_TRUE(broker("crash", run.broker_dir));
        ASSERT_TRUE(broker("start", run.broker_dir));
        break;
      case Chaos::RestartBroker:
        std::printf("[ harness  ] restart broker  at %5lld of %d steps\n", at, 5 * orders);
        ASSERT_TRUE(broker("stop", run.broker_dir));
        ASSERT_TRUE(broker("start", run.broker_dir));
        break;
    }
  }
  // The survivors and successors finish: every step done and nothing owed anywhere.
  const auto deadline = std::chrono::steady_clock::now() + 180s;
  while (steps_done(dir) < 5 * std::int64_t{orders} || rows_owed(dir) > 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "stuck at " << steps_done(dir) << " of " << 5 * orders << " steps, " << rows_owed(dir)
        << " rows owed";
    run.expect_all_running();
    std::this_thread::sleep_for(1ms);
  }
  for (const pid_t pid : run.pids) kill(pid, SIGTERM);
  for (std::size_t i = 0; i < kRoles.size(); ++i) {
    EXPECT_EQ(wait_for(run.pids[i]), 0) << kRoles[i] << " did not stop cleanly on SIGTERM";
    run.pids[i] = 0;
  }
  std::printf("[ harness  ] %d orders in %.1f s, %zu service processes killed\n", orders,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
              run.killed.size());
  expect_every_order_stored_once(dir, orders);
  expect_every_effect_once(run.journal, run.killed, orders);
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

TEST(RabbitMqProcessesTests, ServicesBrokerKilledAndRestarted_EveryEffectExactlyOnce) {
  const int rounds = env_or("WHIZBANG_RMQ_CHAOS_ROUNDS", 3);
  const int orders = env_or("WHIZBANG_RMQ_CHAOS_ORDERS", 300);
  const int events = env_or("WHIZBANG_RMQ_CHAOS_EVENTS", 8);
  const int seed = seed_from_env_or_clock();
  for (int round = 0; round < rounds && !::testing::Test::HasFailure(); ++round) {
    run_round(seed + round, orders, events);
  }
}

}  // namespace
