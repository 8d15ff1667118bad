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
#include <random>

#include "serve_processes.hpp"

namespace {

using namespace crash_harness;
using namespace std::chrono_literals;

const std::string kAmqpUrl =
    "amqp://guest:guest@127.0.0.1:" + std::to_string(WHIZBANG_RMQ_CHAOS_PORT);

bool broker(const std::string& command, const std::filesystem::path& dir) {
  const std::string line = std::string(WHIZBANG_RMQ_SERVER_SCRIPT) + " " + command + " " +
                           dir.string() + " " + std::to_string(WHIZBANG_RMQ_CHAOS_PORT) +
                           " >/dev/null";
  return std::system(line.c_str()) == 0;
}

// The round's broker, stopped (by its pid) and deleted however the round ends.
struct Broker {
  std::filesystem::path dir = "/tmp/whizbang-rmq-chaos-" + std::to_string(WHIZBANG_RMQ_CHAOS_PORT);
  bool up() { return broker("up", dir); }
  ~Broker() { broker("down", dir); }
};

enum class Chaos { KillService, KillBroker, RestartBroker };

void run_round(int seed, int orders, int events) {
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  std::printf("[ harness  ] WHIZBANG_CRASH_SEED=%d, %d orders, %d chaos events, RabbitMQ\n", seed,
              orders, events);
  Broker broker_process;
  ASSERT_TRUE(broker_process.up());
  // Fulfilment first: its queues must exist before sales publishes the events they bind.
  ServeProcesses processes(
      std::filesystem::path(CRASH_RESTART_DATA_DIR) /
          ("rabbitmq-" + std::to_string(static_cast<long>(getpid())) + "-" + std::to_string(seed)),
      {"fulfilment", "fulfilment", "sales", "sales"}, {kAmqpUrl});
  const std::filesystem::path& dir = processes.dir();
  processes.submit(orders);
  if (::testing::Test::HasFatalFailure()) return;
  for (std::size_t i = 0; i < processes.size(); ++i) {
    processes.spawn(i);
    processes.await_ready(i);
    if (::testing::Test::HasFatalFailure()) return;
  }

  // The chaos: mostly service kills, and at least one broker crash and one graceful restart.
  std::vector<Chaos> chaos(static_cast<std::size_t>(std::max(events, 2)), Chaos::KillService);
  chaos[0] = Chaos::KillBroker;
  chaos[1] = Chaos::RestartBroker;
  std::shuffle(chaos.begin(), chaos.end(), random);
  const std::vector<std::int64_t> targets = strike_targets(random, chaos.size(), orders, 1);
  std::uniform_int_distribution<std::size_t> victim(0, processes.size() - 1);
  std::uniform_int_distribution<int> jitter_ms(0, 3);
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t event = 0; event < chaos.size(); ++event) {
    processes.await_steps(targets[event]);
    if (::testing::Test::HasFatalFailure()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter_ms(random)));
    const long long at = static_cast<long long>(steps_done(dir));
    switch (chaos[event]) {
      case Chaos::KillService: {
        const std::size_t index = victim(random);
        processes.kill_and_restart(index);
        if (::testing::Test::HasFatalFailure()) return;
        std::printf("[ harness  ] SIGKILL %-10s at %5lld of %d steps\n",
                    processes.role(index).c_str(), at, 5 * orders);
        break;
      }
      case Chaos::KillBroker:
        std::printf("[ harness  ] SIGKILL broker  at %5lld of %d steps\n", at, 5 * orders);
        ASSERT_TRUE(broker("crash", broker_process.dir));
        ASSERT_TRUE(broker("start", broker_process.dir));
        break;
      case Chaos::RestartBroker:
        std::printf("[ harness  ] restart broker  at %5lld of %d steps\n", at, 5 * orders);
        ASSERT_TRUE(broker("stop", broker_process.dir));
        ASSERT_TRUE(broker("start", broker_process.dir));
        break;
    }
  }
  // Each store receives both events of every order (its own one too, through its queue).
  processes.finish_and_check(orders, started, /*deliveries_per_order=*/2);
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
