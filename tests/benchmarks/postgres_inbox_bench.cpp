// How the inbox side scales on PostgreSQL: 1, 2 and 4 InboxWorkers, each with a store (a
// connection and an instance id) of its own, as instances of one service, handling one inbox.
//
// The workers run as a host runs them (start(): a thread each, woken by the commits of other
// connections through LISTEN/NOTIFY). Each iteration stores 1000 Tick events on 500 streams
// (the timed part starts with that commit) and ends when every row was handled. A handling emits
// one outbox row, as a receptor that returns an event does; the claim appends each event to the
// event store. A stream's rows go to one instance at a time (stream order), so a batch of 100
// claims the first rows of 100 streams and the next instance the next streams'. The server and
// the instances share the machine's cores.
//
//   tests/support/postgres-server.sh up /tmp/wh-bench
//   export
//   WHIZBANG_PG_CONNINFO='postgresql:///whizbang_test?host=/tmp/wh-bench&port=55432&user=whizbang'
//   build/tests/benchmarks/postgres_inbox_bench
#include <benchmark/benchmark.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench_schema.hpp"
#include "e2e_bench_tick.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang_messages.hpp"  // the Tick's MessageTraits (generated)

namespace {

constexpr int kRows = 1000;
constexpr int kStreams = 500;

whizbang::ServiceInstance instance() {
  return {"consumer", whizbang::MessageId::mint().uuid(), "bench-host", 1};
}

// kRows Ticks from the producer, round-robin over `streams`, as the inbox stores deliveries.
std::vector<whizbang::InboxMessage> deliveries(const std::vector<whizbang::Uuid>& streams) {
  const whizbang::ServiceInstance producer{"producer", whizbang::MessageId::mint().uuid(),
                                           "bench-host", 2};
  std::vector<whizbang::InboxMessage> rows;
  for (int i = 0; i < kRows; ++i) {
    whizbang::Envelope envelope =
        whizbang::Envelope::create(whizbang::AnyMessage::make(bench::Tick{}), producer);
    envelope.hops.front().stream_id = streams[static_cast<std::size_t>(i % kStreams)];
    whizbang::InboxMessage row;
    row.message_id = envelope.message_id;
    row.handler_name = "TickHandler";
    row.message_type = std::string(whizbang::MessageTraits<bench::Tick>::info().wire_name);
    row.envelope_json = whizbang::serialize_envelope(envelope);
    row.stream_id = envelope.hops.front().stream_id;
    row.is_event = true;
    rows.push_back(std::move(row));
  }
  return rows;
}

// The row a handling emits (a receptor's returned event), with an id of its own.
whizbang::OutboxMessage emitted(const whizbang::WorkItem& item) {
  whizbang::OutboxMessage row;
  row.message_id = whizbang::MessageId::mint();
  row.destination = "shipping";
  row.message_type = item.message_type;
  row.envelope_json = item.envelope_json;
  row.stream_id = item.stream_id;
  row.is_event = true;
  return row;
}

void BM_PostgresInboxWorkers(benchmark::State& state) {
  const auto instances = static_cast<std::size_t>(state.range(0));
  const std::string conninfo = bench::fresh_schema("inbox_" + std::to_string(instances));
  if (conninfo.empty()) return state.SkipWithError("no server (WHIZBANG_PG_CONNINFO)");
  const whizbang::Uuid service_id = whizbang::MessageId::mint().uuid();
  auto resolve = [](std::string_view name) {
    return bench::producer_registry().find_message(name);
  };
  // Handlings done, counted when each handler returns (its group commits right after).
  struct Progress {
    std::mutex mutex;
    std::condition_variable advanced;
    int handled = 0;
  } progress;
  auto handler = [&](whizbang::InboxHandling& handling) -> absl::Status {
    const whizbang::OutboxMessage row = emitted(handling.item);
    absl::StatusOr<std::vector<whizbang::StoredOutboxRow>> stored =
        handling.store.store_outbox_messages({&row, 1});
    if (!stored.ok()) return stored.status();
    std::lock_guard lock(progress.mutex);
    if (++progress.handled >= kRows) progress.advanced.notify_all();
    return absl::OkStatus();
  };
  std::vector<std::unique_ptr<whizbang::PostgresWorkStore>> stores;
  std::vector<std::unique_ptr<whizbang::InboxWorker>> workers;
  for (std::size_t i = 0; i < instances; ++i) {
    whizbang::StoreOptions options;
    options.instance = instance();
    auto store = whizbang::PostgresWorkStore::open(conninfo, options);
    if (!store.ok()) return state.SkipWithError(std::string(store.status().message()).c_str());
    whizbang::InboxWorkerOptions worker_options;
    worker_options.service_name = "consumer";
    worker_options.service_id = service_id;
    workers.push_back(
        std::make_unique<whizbang::InboxWorker>(**store, resolve, handler, worker_options));
    stores.push_back(*std::move(store));
  }
  std::vector<whizbang::Uuid> streams;
  for (int i = 0; i < kStreams; ++i) streams.push_back(whizbang::MessageId::mint().uuid());

  for (auto& worker : workers) worker->start();
  for (auto _ : state) {
    state.PauseTiming();
    {
      std::lock_guard lock(progress.mutex);
      progress.handled = 0;
    }
    const std::vector<whizbang::InboxMessage> rows = deliveries(streams);
    state.ResumeTiming();
    if (!stores.front()->store_inbox_messages(rows, service_id).ok()) {
      state.SkipWithError("storing the deliveries failed");
      break;
    }
    std::unique_lock lock(progress.mutex);
    if (!progress.advanced.wait_for(lock, std::chrono::seconds(60),
                                    [&] { return progress.handled >= kRows; })) {
      state.SkipWithError("the rows were not handled within 60 s");
      break;
    }
  }
  for (auto& worker : workers) worker->stop();
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_PostgresInboxWorkers)
    ->ArgName("instances")
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
