// How a claim's cost grows with the work waiting: claiming 100 rows
// of the outbox and of the inbox with `pending` rows waiting, on SQLite and on PostgreSQL. The
// goal is a flat curve: every pending:1000000 figure at most 1.5 times its pending:1000 figure
// (the 1k figure is the baseline of the same run). Each iteration claims 100 rows (timed), then
// completes them and stores 100 new ones (not timed), so the backlog stays at `pending`.
//
//   build/tests/benchmarks/growth_bench                       # SQLite, 1k / 100k / 1M
//   WHIZBANG_PG_CONNINFO=... build/tests/benchmarks/growth_bench   # and PostgreSQL
//
// Without WHIZBANG_PG_CONNINFO the PostgreSQL rows are skipped with a message (./dev.sh growth
// starts a throwaway server). The other curves: growth_dedup.cpp, growth_events.cpp,
// growth_purge.cpp.
#include "growth_stores.hpp"

namespace growth::claims {

enum class Table { Outbox, Inbox };

absl::Status store_rows(whizbang::WorkStore& store, Table table, std::size_t count,
                        const whizbang::Uuid& service_id) {
  if (table == Table::Outbox) return store.store_outbox_messages(outbox_rows(count)).status();
  return store.store_inbox_messages(inbox_rows(count), service_id).status();
}

void claim_100(benchmark::State& state, Backend backend, Table table) {
  if (skip_without_postgres(state, backend)) return;
  const auto pending = static_cast<std::size_t>(state.range(0));
  Seeded* fixture =
      seeded(state, backend, table == Table::Outbox ? "outbox" : "inbox", pending,
             [table](whizbang::WorkStore& store, std::size_t count, const whizbang::Uuid& id) {
               return store_rows(store, table, count, id);
             });
  if (fixture == nullptr) return;
  whizbang::WorkStore& store = *fixture->store;
  whizbang::WorkBatchRequest claim;
  claim.claim_outbox = table == Table::Outbox;
  claim.claim_inbox = table == Table::Inbox;
  claim.max_items = kClaim;
  const auto source =
      table == Table::Outbox ? whizbang::WorkSource::Outbox : whizbang::WorkSource::Inbox;
  const auto done = table == Table::Outbox ? whizbang::MessageStatus::Published
                                           : whizbang::MessageStatus::EventStored;
  for (auto _ : state) {
    auto claimed = store.process_work_batch(claim);
    state.PauseTiming();
    if (!claimed.ok() || claimed->size() != kClaim) {
      state.SkipWithError(claimed.ok() ? "claimed fewer than 100 rows"
                                       : std::string(claimed.status().message()).c_str());
      break;
    }
    // Complete what was claimed and store as many new rows: the backlog stays at `pending`.
    whizbang::WorkBatchRequest settle;
    settle.claim_outbox = false;
    settle.claim_inbox = false;
    for (const whizbang::WorkItem& item : *claimed) {
      settle.completions.push_back({source, item.message_id, done});
    }
    if (!store.process_work_batch(settle).ok() ||
        !store_rows(store, table, kClaim, fixture->service_id).ok()) {
      state.SkipWithError("completing the claimed rows failed");
      break;
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kClaim));
}

void BM_Growth_Sqlite_OutboxClaim100(benchmark::State& state) {
  claim_100(state, Backend::Sqlite, Table::Outbox);
}
BENCHMARK(BM_Growth_Sqlite_OutboxClaim100)->Apply(apply_sizes);
void BM_Growth_Sqlite_InboxClaim100(benchmark::State& state) {
  claim_100(state, Backend::Sqlite, Table::Inbox);
}
BENCHMARK(BM_Growth_Sqlite_InboxClaim100)->Apply(apply_sizes);
void BM_Growth_Postgres_OutboxClaim100(benchmark::State& state) {
  claim_100(state, Backend::Postgres, Table::Outbox);
}
BENCHMARK(BM_Growth_Postgres_OutboxClaim100)->Apply(apply_sizes);
void BM_Growth_Postgres_InboxClaim100(benchmark::State& state) {
  claim_100(state, Backend::Postgres, Table::Inbox);
}
BENCHMARK(BM_Growth_Postgres_InboxClaim100)->Apply(apply_sizes);

}  // namespace growth::claims

BENCHMARK_MAIN();
