// Durable end to end: publish in one service (SQLite store), outbox -> in-process transport ->
// inbox of a second service (its own SQLite store) -> receptor, in batches of 100 publishes (each
// its own transaction) stepped through both services' workers. Reported as messages/s; the
// store's raw insert baseline is store_bench.
//   build/tests/benchmarks/e2e_bench
#include <benchmark/benchmark.h>

#include <filesystem>

#include <whizbang/host/service_host.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include "dispatch_bench_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

struct Node {
  Node(const std::filesystem::path& dir, const std::string& name, whizbang::Transport& transport) {
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = name;
    store = *whizbang::SqliteWorkStore::open((dir / (name + ".db")).string(), store_options);
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

void BM_DurableEndToEnd_PublishToRemoteReceptor(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("whizbang-e2e-" + whizbang::MessageId::mint().to_string());
  std::filesystem::create_directories(dir);
  {
    whizbang::InProcessTransport transport;
    Node producer(dir, "producer", transport);
    Node consumer(dir, "consumer", transport);
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
BENCHMARK(BM_DurableEndToEnd_PublishToRemoteReceptor)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
