// RabbitMqTransport against a raw rabbitmq-c loop doing the same broker work, same broker, same
// run (800-byte persistent messages, a durable queue, publisher confirms, manual acks).
//
// - Throughput: publish a batch of 100 and wait for the broker's confirms, then consume those
//   100 with manual acknowledgements (prefetch 100). Raw: one connection publishes (mandatory,
//   confirm select, frames read until the ack covers the last tag), another consumes
//   (basic.consume, an ack per message). Library: RabbitMqTransport::publish of the batch, and a
//   subscription whose handler counts deliveries (acknowledged after it returns).
// - Latency: one message at a time, publish until delivered to the consumer, p50 and p99 as
//   counters (microseconds).
//
// Needs a broker: WHIZBANG_AMQP_URL, e.g.
//   tests/support/rabbitmq-server.sh up /tmp/wh-rmq-bench 16000
//   WHIZBANG_AMQP_URL=amqp://guest:guest@127.0.0.1:16000 taskset -c 1
//   build/tests/benchmarks/rabbitmq_bench
#include <benchmark/benchmark.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "raw_amqp_loop.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_transport.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kBatch = 100;
using bench::kAmqpBody;
using bench::RawLoop;

// The library's side: a transport, and a subscription that counts deliveries.
struct LibraryLoop {
  whizbang::RabbitMqTransport transport{bench::bench_amqp_options()};
  std::string exchange = bench::unique_amqp_name("bench.lib");
  std::mutex mutex;
  std::condition_variable arrived;
  int delivered = 0;
  std::unique_ptr<whizbang::TransportSubscription> subscription;

  bool setup() {
    auto subscribed =
        transport.subscribe(bench::unique_amqp_name("bench-lib"), {{exchange, ""}},
                            [this](const whizbang::TransportDestination&,
                                   std::span<const whizbang::TransportMessage> batch) {
                              std::lock_guard lock(mutex);
                              delivered += static_cast<int>(batch.size());
                              arrived.notify_all();
                              return absl::OkStatus();
                            });
    if (!subscribed.ok()) return false;
    subscription = *std::move(subscribed);
    return transport.is_ready();
  }

  static std::vector<whizbang::TransportMessage> batch(int count) {
    std::vector<whizbang::TransportMessage> messages(static_cast<std::size_t>(count));
    for (auto& message : messages) {
      message.message_id = whizbang::MessageId::mint();
      message.message_type = "bench::events::Tick";
      message.envelope_json = kAmqpBody;
      message.is_event = true;
    }
    return messages;
  }

  bool publish(const std::vector<whizbang::TransportMessage>& messages) {
    return transport.publish({exchange, "bench.events.tick", {}}, messages).ok();
  }

  void wait_for(int total) {
    std::unique_lock lock(mutex);
    arrived.wait(lock, [&] { return delivered >= total; });
  }
};

void report_latency(benchmark::State& state, std::vector<double>& micros) {
  if (micros.empty()) return;
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[std::min(micros.size() - 1, micros.size() * 99 / 100)];
}

void BM_Raw_Publish100Confirmed_Consume100(benchmark::State& state) {
  RawLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  for (auto _ : state) {
    if (!loop.publish(kBatch) || !loop.consume(kBatch)) return state.SkipWithError("broker error");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_Transport_Publish100Confirmed_Consume100(benchmark::State& state) {
  LibraryLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  int total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto messages = LibraryLoop::batch(kBatch);
    state.ResumeTiming();
    if (!loop.publish(messages)) return state.SkipWithError("publish failed");
    total += kBatch;
    loop.wait_for(total);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_Raw_OneMessage_PublishToDelivery(benchmark::State& state) {
  RawLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  std::vector<double> micros;
  for (auto _ : state) {
    const auto start = Clock::now();
    if (!loop.publish(1) || !loop.consume(1)) return state.SkipWithError("broker error");
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  report_latency(state, micros);
}

void BM_Transport_OneMessage_PublishToDelivery(benchmark::State& state) {
  LibraryLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  std::vector<double> micros;
  int total = 0;
  for (auto _ : state) {
    const auto message = LibraryLoop::batch(1);
    const auto start = Clock::now();
    if (!loop.publish(message)) return state.SkipWithError("publish failed");
    loop.wait_for(++total);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  report_latency(state, micros);
}

BENCHMARK(BM_Raw_Publish100Confirmed_Consume100)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Transport_Publish100Confirmed_Consume100)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Raw_OneMessage_PublishToDelivery)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Transport_OneMessage_PublishToDelivery)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
