// Dispatch cost vs a hand-written std::function table doing the same call, in the same run.
//   build/tests/benchmarks/dispatch_bench
// The allocs_per_message counter counts global operator new calls per published/emitted message.
#include <benchmark/benchmark.h>

#include <functional>
#include <unordered_map>

#include <whizbang/dispatch/dispatcher.hpp>
#include <whizbang/lifecycle/receptor_invoker.hpp>

#include "alloc_counter.hpp"
#include "dispatch_bench_messages.hpp"
#include "whizbang/internal/fast_clock.hpp"
#include "whizbang_registry.hpp"

namespace {

struct Fixture {
  Fixture() {
    services.add<bench::Counter>(counter);
    whizbang::DispatcherOptions options;
    options.self.service_name = "bench";
    dispatcher = *whizbang::Dispatcher::create(whizbang::generated::dispatch_bench::registry(),
                                               services, std::move(options));
  }
  bench::Counter counter;
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::Dispatcher> dispatcher;
};

// Baseline: a type-keyed table of std::function handlers, called for one event.
void BM_StdFunctionTable_Publish(benchmark::State& state) {
  bench::Counter counter;
  bench::PingReceptor receptor(counter);
  std::unordered_map<const void*, std::vector<std::function<void(const void*)>>> table;
  static const char kPingKey = 0;
  table[&kPingKey].push_back(
      [&](const void* message) { receptor.handle(*static_cast<const bench::Ping*>(message)); });
  bench::Ping ping;
  ping.n = 1;
  const std::int64_t before = bench::allocations();
  for (auto _ : state) {
    for (auto& handler : table.at(&kPingKey)) handler(&ping);
    benchmark::DoNotOptimize(counter.value);
  }
  state.counters["allocs_per_message"] = benchmark::Counter(
      static_cast<double>(bench::allocations() - before), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_StdFunctionTable_Publish);

// Publishes `message` LocalNoPersist to its one void receptor, counting allocations.
template <class Message>
void publish_local_no_persist(benchmark::State& state, const Message& message) {
  Fixture fixture;
  const std::int64_t before = bench::allocations();
  for (auto _ : state) {
    auto receipt = fixture.dispatcher->publish(whizbang::Route::LocalNoPersist(message));
    benchmark::DoNotOptimize(receipt);
  }
  state.counters["allocs_per_message"] = benchmark::Counter(
      static_cast<double>(bench::allocations() - before), benchmark::Counter::kAvgIterations);
}

void BM_Dispatcher_PublishLocalNoPersist(benchmark::State& state) {
  bench::Ping ping;
  ping.n = 1;
  publish_local_no_persist(state, ping);
}
BENCHMARK(BM_Dispatcher_PublishLocalNoPersist);

// The same for an event whose destination is longer than 15 characters (beyond a std::string's
// inline storage): the receipt borrows it (DeliveryReceipt::destination), so no allocation
// either. It took one while the receipt owned a copy.
void BM_Dispatcher_PublishLocalNoPersist_LongDestination(benchmark::State& state) {
  bench::CustomerAddressChanged changed;
  changed.n = 1;
  publish_local_no_persist(state, changed);
}
BENCHMARK(BM_Dispatcher_PublishLocalNoPersist_LongDestination);

// A command whose receptor returns a 2-event tuple: invoke + cascade of both events (each
// derives its id: two SHA-256 digests).
void BM_Dispatcher_LocalInvokeCascading2Events(benchmark::State& state) {
  Fixture fixture;
  bench::Serve serve;
  serve.n = 1;
  const std::int64_t before = bench::allocations();
  for (auto _ : state) {
    auto status = fixture.dispatcher->local_invoke(serve);
    benchmark::DoNotOptimize(status);
  }
  state.counters["allocs_per_message"] = benchmark::Counter(
      static_cast<double>(bench::allocations() - before) / 2.0, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Dispatcher_LocalInvokeCascading2Events);

// The generated extraction alone: walk a 2-event tuple into a sink.
class CountingSink final : public whizbang::CascadeSink {
 public:
  void emit(whizbang::AnyMessage message, whizbang::DispatchModes) override {
    benchmark::DoNotOptimize(message);
    ++count;
  }
  std::int64_t count = 0;
};

void BM_GeneratedCascadeExtraction_TwoEventTuple(benchmark::State& state) {
  Fixture fixture;
  const whizbang::Registry& registry = fixture.dispatcher->registry();
  const whizbang::ReceptorInfo* serve = registry.find_receptor("bench::ServeReceptor");
  auto receptors = *registry.create_receptors(fixture.services);
  bench::Serve command;
  command.n = 1;
  const whizbang::AnyMessage message = whizbang::AnyMessage::make(command);
  CountingSink sink;
  for (auto _ : state) {
    auto status = registry.invoke(*serve, receptors, message, sink);
    benchmark::DoNotOptimize(status);
  }
}
BENCHMARK(BM_GeneratedCascadeExtraction_TwoEventTuple);

// The generated dispatch switch alone (what the std::function table does, with the event already
// type-erased): message index lookup, switch, direct handle() call.
class PassVisitor final : public whizbang::DispatchVisitor {
 public:
  void emit(whizbang::AnyMessage, whizbang::DispatchModes) override {}
};

void BM_GeneratedDispatchSwitch_Publish(benchmark::State& state) {
  Fixture fixture;
  const whizbang::Registry& registry = fixture.dispatcher->registry();
  auto receptors = *registry.create_receptors(fixture.services);
  bench::Ping ping;
  ping.n = 1;
  const whizbang::AnyMessage message = whizbang::AnyMessage::make(ping);
  PassVisitor visitor;
  for (auto _ : state) {
    auto status = registry.dispatch(message, receptors, visitor);
    benchmark::DoNotOptimize(status);
  }
}
BENCHMARK(BM_GeneratedDispatchSwitch_Publish);

// The exactly-once guardrail per invocation: TrackAndEnforce (dedup lookup + record) vs Off, for
// a trivial receptor at PostInboxInline. Each iteration invokes a fresh copy of one envelope, which
// arrives from another service carrying state.range(0) records of receptors that service fired
// (0: the lookup has nothing to read; 2: it reads both and finds no match).
void invoke_with_tracking(benchmark::State& state, whizbang::ReceptorInvocationTracking tracking) {
  Fixture fixture;
  whizbang::ReceptorInvokerOptions options;
  options.guardrails.tracking = tracking;
  whizbang::ReceptorInvoker invoker(*fixture.dispatcher, options);
  bench::Ping ping;
  ping.n = 1;
  whizbang::ServiceInstance elsewhere;
  elsewhere.service_name = "elsewhere";
  whizbang::Envelope prototype =
      whizbang::Envelope::create(whizbang::AnyMessage::make(ping), elsewhere);
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    whizbang::ReceptorInvocationRecord& upstream = prototype.receptor_invocations.emplace_back();
    upstream.receptor_id = "elsewhere::Receptor" + std::to_string(i);
    upstream.stage = whizbang::Stage::LocalImmediateInline;
    upstream.service_name = "elsewhere";
  }
  const std::int64_t before = bench::allocations();
  for (auto _ : state) {
    whizbang::Envelope envelope = prototype;
    auto report = invoker.invoke(envelope, whizbang::Stage::PostInboxInline);
    benchmark::DoNotOptimize(report);
  }
  // Includes the envelope copy and the report; the guardrail's share is the difference.
  state.counters["allocs_per_invocation"] = benchmark::Counter(
      static_cast<double>(bench::allocations() - before), benchmark::Counter::kAvgIterations);
}
void BM_Guardrail_Off(benchmark::State& state) {
  invoke_with_tracking(state, whizbang::ReceptorInvocationTracking::Off);
}
void BM_Guardrail_TrackAndEnforce(benchmark::State& state) {
  invoke_with_tracking(state, whizbang::ReceptorInvocationTracking::TrackAndEnforce);
}
BENCHMARK(BM_Guardrail_Off)->Arg(0)->Arg(2);
BENCHMARK(BM_Guardrail_TrackAndEnforce)->Arg(0)->Arg(2);

// What the guardrail pays for an invocation record's timestamps: two reads per invocation.
void BM_RecordClock_SystemClockTwice(benchmark::State& state) {
  for (auto _ : state) {
    const auto started = std::chrono::system_clock::now();
    benchmark::DoNotOptimize(std::chrono::system_clock::now() - started);
  }
}
void BM_RecordClock_FastClockTwice(benchmark::State& state) {
  for (auto _ : state) {
    const auto started = whizbang::internal::FastClock::now();
    benchmark::DoNotOptimize(whizbang::internal::FastClock::now() - started);
  }
}
BENCHMARK(BM_RecordClock_SystemClockTwice);
BENCHMARK(BM_RecordClock_FastClockTwice);

}  // namespace

BENCHMARK_MAIN();
