// RabbitMqProcessesTests: the harness's services as separate processes joined by a RabbitMQ
// broker (two processes a service, competing for their service's queue and store). At seeded
// random moments one of them is killed with SIGKILL and restarted, the broker's VM is killed and
// restarted, the broker is stopped gracefully and restarted, or one service is cut off from the
// broker (its network link down for a while, then up), while the rest keep running. Afterwards
// every order must be stored exactly once and every receptor's side effect must have happened
// once (more often only where a process died mid-handling): what crossed the broker crossed it
// exactly once, whatever it went through.
//
// The services keep their rows in SQLite files, or (PostgresStores_*) in a PostgreSQL schema each
// on the run's server, where the two processes of a service share the schema as instances of a
// service share a database. The broker and each service run in network namespaces of their own
// (crash_harness::ChaosNetwork), which needs root; without it they share this machine's loopback
// and the chaos has no partitions.
//
// WHIZBANG_RMQ_CHAOS_ROUNDS (1; `./dev.sh chaos` runs 3), WHIZBANG_RMQ_CHAOS_ORDERS (300),
// WHIZBANG_RMQ_CHAOS_EVENTS (8) and WHIZBANG_CRASH_SEED (else from the clock; printed) shape the
// run; each round uses the next seed and a fresh broker, and has at least one of every kind of
// fault.
#include <algorithm>
#include <optional>
#include <random>

#include "serve_processes.hpp"
#include "support/postgres_schema.hpp"

namespace {

using namespace crash_harness;
using namespace std::chrono_literals;

// How long a partition lasts: several of the services' 2 s heartbeats, so both sides notice.
constexpr auto kPartition = 6s;

// The round's broker, in the round's network (or on this machine's loopback without one); stopped
// (by its pid) and deleted however the round ends.
class Broker {
 public:
  explicit Broker(const ChaosNetwork* network) : network_(network) {}
  ~Broker() { command("down"); }
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // up (a fresh broker), crash (SIGKILL of its VM), stop (graceful), start (on the data kept).
  bool command(const std::string& what) {
    std::string line = std::string(WHIZBANG_RMQ_SERVER_SCRIPT) + " " + what + " " + dir_.string() +
                       " " + std::to_string(WHIZBANG_RMQ_CHAOS_PORT);
    // In its own namespace, it listens on every address it has there (start included).
    if (network_ != nullptr) line = network_->in_broker(line + " 0.0.0.0");
    return std::system((line + " >/dev/null").c_str()) == 0;
  }
  std::string url() const {
    return "amqp://guest:guest@" +
           (network_ != nullptr ? network_->broker_address() : std::string("127.0.0.1")) + ":" +
           std::to_string(WHIZBANG_RMQ_CHAOS_PORT);
  }

 private:
  const ChaosNetwork* network_;
  // Per test process: no two harness processes share a broker's files.
  std::filesystem::path dir_ = "/tmp/whizbang-rmq-chaos-" +
                               std::to_string(WHIZBANG_RMQ_CHAOS_PORT) + "-" +
                               std::to_string(static_cast<long>(getpid()));
};

enum class Chaos { KillService, KillBroker, RestartBroker, Partition };
enum class Backend { Sqlite, Postgres };

void run_round(int seed, int orders, int events, Backend backend) {
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  const bool partitions = ChaosNetwork::available();
  std::printf("[ harness  ] WHIZBANG_CRASH_SEED=%d, %d orders, %d chaos events, RabbitMQ, %s%s\n",
              seed, orders, events, backend == Backend::Sqlite ? "SQLite" : "PostgreSQL",
              partitions ? "" : " (not root: no partitions)");
  const std::string name = std::to_string(static_cast<long>(getpid())) + "_" + std::to_string(seed);
  std::unique_ptr<Stores> stores;
  if (backend == Backend::Postgres) {
    const std::string conninfo = whizbang_test::postgres_conninfo();
    ASSERT_FALSE(conninfo.empty());
    stores = std::make_unique<PostgresStores>(conninfo, "chaos" + name);
    if (::testing::Test::HasFailure()) return;
  }
  std::optional<ChaosNetwork> network;
  if (partitions) {
    // Named after the test process and the round: no two harnesses share one.
    network.emplace(static_cast<int>(getpid() % 1000) * 100 + seed % 100);
    ASSERT_TRUE(network->start()) << "cannot set up the network namespaces";
  }
  Broker broker(network ? &*network : nullptr);
  ASSERT_TRUE(broker.command("up"));
  // Fulfilment first: its queues must exist before sales publishes the events they bind.
  ServeProcesses processes(std::filesystem::path(CRASH_RESTART_DATA_DIR) / ("rabbitmq-" + name),
                           {"fulfilment", "fulfilment", "sales", "sales"}, {broker.url()},
                           std::move(stores));
  if (network) {
    processes.run_in_namespaces({{"sales", network->namespace_of("sales")},
                                 {"fulfilment", network->namespace_of("fulfilment")}});
  }
  processes.submit(orders);
  if (::testing::Test::HasFatalFailure()) return;
  for (std::size_t i = 0; i < processes.size(); ++i) {
    processes.spawn(i);
    processes.await_ready(i);
    if (::testing::Test::HasFatalFailure()) return;
  }

  // The chaos: mostly service kills, and at least one broker crash, one graceful restart and
  // (with a network) one partition.
  std::vector<Chaos> chaos(static_cast<std::size_t>(std::max(events, 3)), Chaos::KillService);
  chaos[0] = Chaos::KillBroker;
  chaos[1] = Chaos::RestartBroker;
  if (partitions) chaos[2] = Chaos::Partition;
  std::shuffle(chaos.begin(), chaos.end(), random);
  const std::vector<std::int64_t> targets = strike_targets(random, chaos.size(), orders, 1);
  std::uniform_int_distribution<std::size_t> victim(0, processes.size() - 1);
  std::uniform_int_distribution<int> jitter_ms(0, 3);
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t event = 0; event < chaos.size(); ++event) {
    processes.await_steps(targets[event]);
    if (::testing::Test::HasFatalFailure()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter_ms(random)));
    const long long at = static_cast<long long>(steps_done(processes.stores()));
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
        ASSERT_TRUE(broker.command("crash"));
        ASSERT_TRUE(broker.command("start"));
        break;
      case Chaos::RestartBroker:
        std::printf("[ harness  ] restart broker  at %5lld of %d steps\n", at, 5 * orders);
        ASSERT_TRUE(broker.command("stop"));
        ASSERT_TRUE(broker.command("start"));
        break;
      case Chaos::Partition: {
        const std::string& service = processes.role(victim(random));
        std::printf("[ harness  ] partition %-10s at %5lld of %d steps\n", service.c_str(), at,
                    5 * orders);
        ASSERT_TRUE(network->link(service, false));
        // The partition lasts a fixed time: what it tests is the link being gone that long.
        std::this_thread::sleep_for(kPartition);
        processes.expect_all_running();
        ASSERT_TRUE(network->link(service, true));
        break;
      }
    }
  }
  // Each store receives both events of every order (its own one too, through its queue).
  processes.finish_and_check(orders, started, /*deliveries_per_order=*/2);
}

void run_rounds(Backend backend) {
  const int rounds = env_or("WHIZBANG_RMQ_CHAOS_ROUNDS", 1);
  const int orders = env_or("WHIZBANG_RMQ_CHAOS_ORDERS", 300);
  const int events = env_or("WHIZBANG_RMQ_CHAOS_EVENTS", 8);
  const int seed = seed_from_env_or_clock();
  for (int round = 0; round < rounds && !::testing::Test::HasFailure(); ++round) {
    run_round(seed + round, orders, events, backend);
  }
}

TEST(RabbitMqProcessesTests, KilledRestartedAndPartitioned_EveryEffectExactlyOnce) {
  run_rounds(Backend::Sqlite);
}

TEST(RabbitMqProcessesTests, PostgresStores_KilledRestartedAndPartitioned_EveryEffectExactlyOnce) {
  run_rounds(Backend::Postgres);
}

}  // namespace
