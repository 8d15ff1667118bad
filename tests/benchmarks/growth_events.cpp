// Growth curves of the event store, on SQLite and PostgreSQL:
// - PerspectiveClaim100: claiming 100 perspective events with `pending` waiting (each iteration
//   claims 100, then completes them and appends 100 new events, not timed);
// - StreamAppend100: appending 100 events (each to a stream of its own: stored, claimed into the
//   event store and completed, as a host without a transport does) to an event store already
//   holding `pending` events; on PostgreSQL at rest (growth_stores.hpp, AtRest) and, as
//   StreamAppend100_BeforeVacuum, straight after the seed.
// Goal: every pending:1000000 figure at most 1.5 times its pending:1000 figure.
#include "growth_stores.hpp"

namespace growth::events {

constexpr const char* kPerspective = "growth::OrderSummary";

// `count` events appended (and, where a perspective is associated, queued for it) as a host
// without a transport appends them: stored and claimed in one batch (the claim appends each to
// its stream), then completed.
absl::Status append_events(whizbang::WorkStore& store, std::size_t count) {
  whizbang::WorkBatchRequest append;
  append.new_outbox = outbox_rows(count, /*event_store_only=*/true);
  append.claim_inbox = false;
  append.event_store_outbox_only = true;
  append.max_items = count;
  auto claimed = store.process_work_batch(append);
  if (!claimed.ok()) return claimed.status();
  if (claimed->size() != count) return absl::InternalError("fewer events claimed than stored");
  whizbang::WorkBatchRequest complete;
  complete.claim_outbox = false;
  complete.claim_inbox = false;
  for (const whizbang::WorkItem& item : *claimed) {
    complete.completions.push_back(
        {whizbang::WorkSource::Outbox, item.message_id, whizbang::MessageStatus::Published});
  }
  return store.process_work_batch(complete).status();
}

SeedPart seed_events() {
  return [](whizbang::WorkStore& store, std::size_t count, const whizbang::Uuid&) {
    return append_events(store, count);
  };
}

void perspective_claim_100(benchmark::State& state, Backend backend) {
  if (skip_without_postgres(state, backend)) return;
  Seeded* fixture = seeded(state, backend, "perspective", static_cast<std::size_t>(state.range(0)),
                           seed_events(), [](whizbang::WorkStore& store) {
                             return store.add_perspective_association(kEventType, kPerspective);
                           });
  if (fixture == nullptr) return;
  whizbang::WorkStore& store = *fixture->store;
  for (auto _ : state) {
    auto claimed = store.claim_perspective_work(kClaim);
    state.PauseTiming();
    if (!claimed.ok() || claimed->size() != kClaim) {
      state.SkipWithError(claimed.ok() ? "claimed fewer than 100 perspective events"
                                       : std::string(claimed.status().message()).c_str());
      break;
    }
    std::vector<whizbang::MessageId> applied;
    for (const whizbang::PerspectiveWork& work : *claimed) applied.push_back(work.event_work_id);
    if (!store.complete_perspective_work(applied).ok() || !append_events(store, kClaim).ok()) {
      state.SkipWithError("completing the claimed perspective events failed");
      break;
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kClaim));
}

void stream_append_100(benchmark::State& state, Backend backend,
                       AtRest at_rest = AtRest::Vacuumed) {
  if (skip_without_postgres(state, backend)) return;
  Seeded* fixture =
      seeded(state, backend, at_rest == AtRest::Vacuumed ? "streams" : "streams_unvacuumed",
             static_cast<std::size_t>(state.range(0)), seed_events(), {}, at_rest);
  if (fixture == nullptr) return;
  for (auto _ : state) {
    if (absl::Status appended = append_events(*fixture->store, kClaim); !appended.ok()) {
      state.SkipWithError(std::string(appended.message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kClaim));
}

void BM_Growth_Sqlite_PerspectiveClaim100(benchmark::State& state) {
  perspective_claim_100(state, Backend::Sqlite);
}
BENCHMARK(BM_Growth_Sqlite_PerspectiveClaim100)->Apply(apply_sizes);
void BM_Growth_Postgres_PerspectiveClaim100(benchmark::State& state) {
  perspective_claim_100(state, Backend::Postgres);
}
BENCHMARK(BM_Growth_Postgres_PerspectiveClaim100)->Apply(apply_sizes);
void BM_Growth_Sqlite_StreamAppend100(benchmark::State& state) {
  stream_append_100(state, Backend::Sqlite);
}
BENCHMARK(BM_Growth_Sqlite_StreamAppend100)->Apply(apply_sizes);
void BM_Growth_Postgres_StreamAppend100(benchmark::State& state) {
  stream_append_100(state, Backend::Postgres);
}
BENCHMARK(BM_Growth_Postgres_StreamAppend100)->Apply(apply_sizes);
// The same straight after the seed's million messages, before any vacuum: the outbox claim walks
// the deleted rows' index entries (docs/guide/20-capacity.md, "Flat under a backlog").
void BM_Growth_Postgres_StreamAppend100_BeforeVacuum(benchmark::State& state) {
  stream_append_100(state, Backend::Postgres, AtRest::BeforeVacuum);
}
BENCHMARK(BM_Growth_Postgres_StreamAppend100_BeforeVacuum)->Apply(apply_sizes);

}  // namespace growth::events
