// Durable end to end: publish in one service, outbox -> in-process transport -> inbox of a second
// service (its own store) -> receptor, in batches of 100 publishes (each its own transaction)
// stepped through both services' workers. Reported as messages/s, on SQLite (a file per service)
// and on PostgreSQL (a schema per service on the server WHIZBANG_PG_CONNINFO names; see
// postgres_bench for starting one). The stores' raw insert baselines are store_bench and
// postgres_bench.
//   build/tests/benchmarks/e2e_bench
#include <benchmark/benchmark.h>

#include <libpq-fe.h>

#include <cstdlib>
#include <filesystem>

#include <whizbang/host/service_host.hpp>
#include <whizbang/store/open_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include "dispatch_bench_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

enum class Backend { Sqlite, Postgres };

// Where `name`'s store lives: a file in `dir`, or a fresh schema on the PostgreSQL server ("" when
// there is no server).
std::string store_location(Backend backend, const std::filesystem::path& dir,
                           const std::string& name) {
  if (backend == Backend::Sqlite) return (dir / (name + ".db")).string();
  const char* conninfo = std::getenv("WHIZBANG_PG_CONNINFO");
  if (conninfo == nullptr) return {};
  const std::string schema = "e2e_" + name;
  PGconn* admin = PQconnectdb(conninfo);
  PQclear(PQexec(
      admin, ("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema).c_str()));
  PQfinish(admin);
  const std::string base(conninfo);
  return base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
         schema;
}

struct Node {
  Node(const std::string& location, const std::string& name, whizbang::Transport& transport) {
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = name;
    store = *whizbang::open_work_store(location, store_options);
    services.add<bench::Counter>(counter);
    whizbang::HostOptions options;
    options.service_name = name;
    options.store = store.get();
    options.transport = &transport;
    host = *whizbang::ServiceHost::create(whizbang::generated::e2e_bench::registry(), services,
                                          std::move(options));
    (void)host->subscribe();  // no threads: the benchmark steps the workers itself
  }
  bench::Counter counter;
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;
};

void durable_end_to_end(benchmark::State& state, Backend backend) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("whizbang-e2e-" + whizbang::MessageId::mint().to_string());
  std::filesystem::create_directories(dir);
  const std::string producer_store = store_location(backend, dir, "producer");
  const std::string consumer_store = store_location(backend, dir, "consumer");
  if (producer_store.empty()) {
    state.SkipWithError("WHIZBANG_PG_CONNINFO is not set: no PostgreSQL server to run on");
    return;
  }
  {
    whizbang::InProcessTransport transport;
    Node producer(producer_store, "producer", transport);
    Node consumer(consumer_store, "consumer", transport);
    const std::int64_t batch = state.range(0);
    bench::Ping ping;
    ping.n = 1;
    for (auto _ : state) {
      // Two receptors of Ping run in the consumer (PostInboxDetached and PostInboxInline).
      const std::int64_t target = consumer.counter.value + 2 * batch;
      for (std::int64_t i = 0; i < batch; ++i) {
        (void)producer.host->dispatcher().publish(whizbang::Route::Outbox(ping));
      }
      while (consumer.counter.value < target) {
        (void)producer.host->run_once();
        (void)consumer.host->run_once();
      }
    }
    state.SetItemsProcessed(state.iterations() * batch);
  }
  std::filesystem::remove_all(dir);
}
void BM_DurableEndToEnd_PublishToRemoteReceptor_Sqlite(benchmark::State& state) {
  durable_end_to_end(state, Backend::Sqlite);
}
BENCHMARK(BM_DurableEndToEnd_PublishToRemoteReceptor_Sqlite)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
void BM_DurableEndToEnd_PublishToRemoteReceptor_Postgres(benchmark::State& state) {
  durable_end_to_end(state, Backend::Postgres);
}
BENCHMARK(BM_DurableEndToEnd_PublishToRemoteReceptor_Postgres)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
