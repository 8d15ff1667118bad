// What tracing costs (docs/guide/18-tracing.md), each figure beside its baseline in the same run:
// - Local publish (LocalNoPersist to one void receptor) with tracing off (no sink: the one
//   branch every dispatch now pays) and on (ratio 1.0 and 0.0, a sink that discards), beside the
//   floor of the same work done by hand: mint the message id, call the receptor.
// - Durable end to end on SQLite (publish, outbox, in-process transport, inbox, receptor; both
//   services stepped), tracing off vs on at ratio 1.0 with a discarding sink.
//   taskset -c 0 build/tests/benchmarks/tracing_bench --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <filesystem>

#include <whizbang/dispatch/dispatcher.hpp>
#include <whizbang/host/service_host.hpp>
#include <whizbang/store/open_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include "cpu_per_message.hpp"
#include "dispatch_bench_messages.hpp"
#include "e2e_bench_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

// Takes every span and drops it: what tracing costs the runtime, without an exporter's.
class DiscardingSink final : public whizbang::SpanSink {
 public:
  void on_end(whizbang::SpanData span) override { benchmark::DoNotOptimize(span.name.data()); }
  void flush(std::chrono::milliseconds) override {}
};

std::shared_ptr<whizbang::Tracer> tracer_for(int mode) {
  // 0: off; 1: on, ratio 1.0; 2: on, ratio 0.0 (spans started, none recorded).
  if (mode == 0) return nullptr;
  return std::make_shared<whizbang::Tracer>(std::make_shared<DiscardingSink>(),
                                            mode == 1 ? 1.0 : 0.0);
}

const char* mode_label(int mode) {
  return mode == 0 ? "tracing off" : mode == 1 ? "tracing on, ratio 1" : "tracing on, ratio 0";
}

// The floor: what a LocalNoPersist publish must do at least (mint its id, call the receptor).
void BM_LocalPublishFloor_MintAndCall(benchmark::State& state) {
  bench::Counter counter;
  bench::PingReceptor receptor(counter);
  bench::Ping ping;
  ping.n = 1;
  for (auto _ : state) {
    const whizbang::MessageId id = whizbang::MessageId::mint();
    benchmark::DoNotOptimize(id);
    receptor.handle(ping);
    benchmark::DoNotOptimize(counter.value);
  }
}
BENCHMARK(BM_LocalPublishFloor_MintAndCall);

// The floor of what a publish promises its caller and its receptor, done by hand with the same
// types: mint the id, make the message's context the thread's own while the receptor runs (it
// may read MessageContext::current()), turn a throw into a status, and return a receipt that
// names the message and its destination (docs/guide/18-tracing.md, "What it costs").
void BM_LocalPublishFloor_WhatAPublishPromises(benchmark::State& state) {
  bench::Counter counter;
  bench::PingReceptor receptor(counter);
  bench::Ping ping;
  ping.n = 1;
  const std::string_view destination = "ping";  // borrowed, as the dispatcher's kept text is
  whizbang::MessageContext context;
  for (auto _ : state) {
    absl::StatusOr<whizbang::DeliveryReceipt> receipt(absl::in_place);
    const whizbang::MessageId id = whizbang::MessageId::mint();
    context.message_id = id;
    context.correlation_id = id;
    {
      const whizbang::ScopedMessageContext scope(context,
                                                 whizbang::ScopedMessageContext::EmptySecurity{});
      try {
        receptor.handle(ping);
      } catch (...) {
        receipt = absl::InternalError("receptor threw");
      }
    }
    if (receipt.ok()) {
      receipt->message_id = id;
      receipt->destination = whizbang::StaticOrOwnedString::Borrowed{destination};
      receipt->stream_id = id.uuid();
    }
    benchmark::DoNotOptimize(receipt);
  }
}
BENCHMARK(BM_LocalPublishFloor_WhatAPublishPromises);

void BM_Dispatcher_PublishLocalNoPersist(benchmark::State& state) {
  bench::Counter counter;
  bench::Tally tally;
  whizbang::ServiceRegistry services;
  services.add<bench::Counter>(counter).add<bench::Tally>(tally);
  whizbang::DispatcherOptions options;
  options.self.service_name = "bench";
  options.tracer = tracer_for(static_cast<int>(state.range(0)));
  auto dispatcher = *whizbang::Dispatcher::create(whizbang::generated::tracing_bench::registry(),
                                                  services, std::move(options));
  bench::Ping ping;
  ping.n = 1;
  for (auto _ : state) {
    auto receipt = dispatcher->publish(whizbang::Route::LocalNoPersist(ping));
    benchmark::DoNotOptimize(receipt);
  }
  state.SetLabel(mode_label(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_Dispatcher_PublishLocalNoPersist)->ArgName("tracing")->Arg(0)->Arg(1)->Arg(2);

struct Node {
  Node(const std::string& location, const std::string& name, whizbang::Transport& transport,
       const whizbang::Registry& registry, int tracing, whizbang::Durability durability) {
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = name;
    store_options.durability = durability;
    store = *whizbang::open_work_store(location, store_options);
    services.add<bench::Counter>(counter).add<bench::Tally>(tally);
    whizbang::HostOptions options;
    options.service_name = name;
    options.store = store.get();
    options.transport = &transport;
    if (tracing != 0) {
      options.span_sink = std::make_shared<DiscardingSink>();
      options.trace_sampling_ratio = tracing == 1 ? 1.0 : 0.0;
    }
    host = *whizbang::ServiceHost::create(registry, services, std::move(options));
    (void)host->subscribe();
  }
  bench::Counter counter;
  bench::Tally tally;
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;
};

// 1000 Ticks published in one transaction; both services stepped until the consumer's receptor
// saw them all (e2e_bench's BM_DurableEndToEnd_Sqlite shape 1000/FULL/100).
void BM_DurableEndToEnd_Sqlite_Tracing(benchmark::State& state) {
  constexpr std::int64_t kMessages = 1000;
  const int tracing = static_cast<int>(state.range(0));
  const auto durability =
      state.range(1) != 0 ? whizbang::Durability::Normal : whizbang::Durability::Full;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("whizbang-trace-bench-" + whizbang::MessageId::mint().to_string());
  std::filesystem::create_directories(dir);
  {
    whizbang::InProcessTransport transport;
    Node producer((dir / "producer.db").string(), "producer", transport, bench::producer_registry(),
                  tracing, durability);
    Node consumer((dir / "consumer.db").string(), "consumer", transport,
                  whizbang::generated::tracing_bench::registry(), tracing, durability);
    const bench::CpuPerMessage cpu;
    for (auto _ : state) {
      const std::int64_t target = consumer.tally.count() + kMessages;
      {
        whizbang::Transaction transaction(*producer.store);
        for (std::int64_t i = 0; i < kMessages; ++i) {
          bench::Tick tick;
          tick.sent_at_ns = bench::steady_now_ns();
          (void)producer.host->dispatcher().publish(whizbang::Route::Outbox(tick));
        }
        (void)transaction.commit();
      }
      while (consumer.tally.count() < target) {
        (void)producer.host->run_once();
        (void)consumer.host->run_once();
      }
    }
    state.SetItemsProcessed(state.iterations() * kMessages);
    cpu.report(state, state.iterations() * kMessages);
    state.SetLabel(mode_label(tracing));
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_DurableEndToEnd_Sqlite_Tracing)
    ->ArgNames({"tracing", "normal"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
