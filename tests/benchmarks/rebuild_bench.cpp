// BM_PerspectiveRebuild: a perspective rebuild (blue-green: arg 0; in place: arg 1) of 10k
// events over 200 streams, against BM_RawReplayLoop: the same events read with the same
// statements (read_perspective_events), decoded, applied with the perspective's apply thunk and
// saved with the same model statement, in transactions of the same size, without the rebuild's
// bookkeeping (ordering, checkpoints, lease, completions, shadow, swap). SQLite file; PostgreSQL
// too when WHIZBANG_PG_CONNINFO is set (arg 2, 3 and BM_RawReplayLoop/1).
//   taskset -c 0 build/tests/benchmarks/rebuild_bench --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/postgres/postgres_work_store.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/workers/perspective_rebuilder.hpp>
#include <whizbang/workers/perspective_worker.hpp>

#include "rebuild_models.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

constexpr int kStreams = 200;
constexpr int kPerStream = 50;
const std::string kCart = "rebuild::CartPerspective";

const whizbang::Registry& registry() { return whizbang::generated::rebuild_bench::registry(); }

struct Bench {
  rebuild::Settings settings;
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::PerspectiveRebuilder> rebuilder;
  std::vector<std::string> types;
  std::shared_ptr<void> instance;
};

void fill(whizbang::WorkStore& store) {
  whizbang::ServiceInstance self{"carts", whizbang::MessageId::mint().uuid(), "bench", 1};
  std::vector<whizbang::OutboxMessage> rows;
  auto flush = [&] {
    whizbang::WorkBatchRequest request;
    request.new_outbox = std::move(rows);
    request.max_items = request.new_outbox.size();  // claimed now: appended to the event store
    rows.clear();
    if (!store.process_work_batch(request).ok()) std::abort();
    // Published: the rows leave the outbox, so the next flush claims only its own.
    whizbang::WorkBatchRequest done;
    done.claim_outbox = false;
    done.claim_inbox = false;
    for (const whizbang::OutboxMessage& row : request.new_outbox) {
      done.completions.push_back({whizbang::WorkSource::Outbox, row.message_id,
                                  whizbang::MessageStatus::Stored |
                                      whizbang::MessageStatus::EventStored |
                                      whizbang::MessageStatus::Published});
    }
    if (!store.process_work_batch(done).ok()) std::abort();
  };
  for (int s = 0; s < kStreams; ++s) {
    const whizbang::Uuid stream = whizbang::MessageId::mint().uuid();
    for (int n = 0; n < kPerStream; ++n) {
      whizbang::Envelope envelope = whizbang::Envelope::create(
          whizbang::AnyMessage::make(rebuild::ItemAdded{{}, "sku", 1 + n % 3, n}), self);
      envelope.hops.front().stream_id = stream;
      whizbang::OutboxMessage row;
      row.message_id = envelope.message_id;
      row.message_type = std::string(envelope.payload.info()->wire_name);
      row.envelope_json = whizbang::serialize_envelope(envelope);
      row.stream_id = stream;
      row.is_event = true;
      rows.push_back(std::move(row));
    }
    if (rows.size() >= 1000) flush();
  }
  if (!rows.empty()) flush();
}

// One store per backend (0: SQLite file, 1: PostgreSQL), filled once per process.
Bench* bench(int backend) {
  static std::map<int, std::unique_ptr<Bench>> benches;
  if (auto found = benches.find(backend); found != benches.end()) return found->second.get();
  auto made = std::make_unique<Bench>();
  made->services.add<rebuild::Settings>(made->settings);
  whizbang::StoreOptions options;
  options.durability = whizbang::Durability::Normal;
  if (backend == 0) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("rebuild_bench_" + std::to_string(::getpid()) + ".db");
    auto opened = whizbang::SqliteWorkStore::open(path.string(), options);
    if (!opened.ok()) std::abort();
    made->store = *std::move(opened);
  } else {
    const char* conninfo = std::getenv("WHIZBANG_PG_CONNINFO");
    if (conninfo == nullptr) return nullptr;
    auto opened = whizbang::PostgresWorkStore::open(conninfo, options);
    if (!opened.ok()) return nullptr;
    made->store = *std::move(opened);
  }
  fill(*made->store);
  auto rebuilder = whizbang::PerspectiveRebuilder::create(registry(), made->services, *made->store);
  if (!rebuilder.ok()) std::abort();
  made->rebuilder = *std::move(rebuilder);
  const whizbang::PerspectiveInfo* info = registry().find_perspective(kCart);
  for (const whizbang::MessageTypeInfo* type : info->events)
    made->types.emplace_back(type->wire_name);
  made->instance = *info->create(made->services);
  return benches.emplace(backend, std::move(made)).first->second.get();
}

void BM_PerspectiveRebuild(benchmark::State& state) {
  Bench* b = bench(static_cast<int>(state.range(0)) / 2);
  if (b == nullptr) return state.SkipWithError("no WHIZBANG_PG_CONNINFO");
  whizbang::RebuildOptions options;
  options.mode =
      state.range(0) % 2 == 0 ? whizbang::RebuildMode::BlueGreen : whizbang::RebuildMode::InPlace;
  for (auto _ : state) {
    auto result = b->rebuilder->rebuild(kCart, options);
    if (!result.ok()) return state.SkipWithError(std::string(result.status().message()).c_str());
  }
  state.SetItemsProcessed(state.iterations() * kStreams * kPerStream);
}
BENCHMARK(BM_PerspectiveRebuild)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

void BM_RawReplayLoop(benchmark::State& state) {
  Bench* b = bench(static_cast<int>(state.range(0)));
  if (b == nullptr) return state.SkipWithError("no WHIZBANG_PG_CONNINFO");
  const whizbang::PerspectiveInfo& info = *registry().find_perspective(kCart);
  for (auto _ : state) {
    std::optional<whizbang::Uuid> after;
    while (true) {
      auto streams = b->store->perspective_streams(b->types, after, 100);
      if (!streams.ok()) return state.SkipWithError("streams");
      if (streams->empty()) break;
      whizbang::Transaction tx(*b->store);
      auto events = b->store->read_perspective_events(*streams, b->types);
      if (!events.ok()) return state.SkipWithError("read");
      std::size_t at = 0;
      for (const whizbang::Uuid& stream : *streams) {
        std::shared_ptr<void> model = info.new_model();
        whizbang::MessageId last;
        for (; at < events->size() && (*events)[at].stream_id == stream; ++at) {
          const whizbang::StoredEvent& event = (*events)[at];
          auto envelope = whizbang::envelope_from_stored_event(
              event.event_id, event.event_type, event.event_data, event.metadata, registry());
          if (!envelope.ok() ||
              !info.apply(b->instance.get(), model.get(), envelope->payload).ok()) {
            return state.SkipWithError("apply");
          }
          last = event.event_id;
        }
        if (!b->store->save_perspective_model(kCart, stream, info.model_to_json(model.get()), last)
                 .ok()) {
          return state.SkipWithError("save");
        }
      }
      if (!tx.commit().ok()) return state.SkipWithError("commit");
      after = streams->back();
    }
  }
  state.SetItemsProcessed(state.iterations() * kStreams * kPerStream);
}
BENCHMARK(BM_RawReplayLoop)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
