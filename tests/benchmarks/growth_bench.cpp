// How a claim's cost grows with the work waiting (docs/guide/19-capacity.md): claiming 100 rows
// of the outbox and of the inbox with `pending` rows waiting, on SQLite and on PostgreSQL. The
// goal is a flat curve: every pending:1000000 figure at most 1.5 times its pending:1000 figure
// (the 1k figure is the baseline of the same run). Each iteration claims 100 rows (timed), then
// completes them and stores 100 new ones (not timed), so the backlog stays at `pending`.
//
//   build/tests/benchmarks/growth_bench                       # SQLite, 1k / 100k / 1M
//   WHIZBANG_PG_CONNINFO=... build/tests/benchmarks/growth_bench   # and PostgreSQL
//
// A store is seeded once per backend, table and size (1M rows: about a minute on SQLite here) and
// kept for the repetitions. Without WHIZBANG_PG_CONNINFO the PostgreSQL rows are skipped with a
// message (./dev.sh growth starts a throwaway server).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench_schema.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace {

constexpr std::size_t kClaim = 100;
constexpr std::size_t kSeedBatch = 10000;

enum class Backend { Sqlite, Postgres };
enum class Table { Outbox, Inbox };

// A small envelope (~200 bytes): the claim reads keys and leases, and 1M rows stay ~300 MB.
const std::string& envelope_text() {
  static const std::string text =
      "{\"v\":1,\"id\":\"0190f3c4-aaaa-7bbb-8ccc-000000000001\",\"p\":{\"order_id\":\"o-1\","
      "\"amount\":129.5},\"h\":[{\"si\":{\"sn\":\"orders\",\"ii\":\"0190f3c4-aaaa-7bbb-8ccc-"
      "000000000002\",\"hn\":\"host-1\",\"pi\":4242},\"ts\":1718000000000001,\"to\":\"orders\"}]}";
  return text;
}

std::vector<whizbang::OutboxMessage> outbox_rows(std::size_t count) {
  std::vector<whizbang::OutboxMessage> rows(count);
  for (whizbang::OutboxMessage& row : rows) {
    row.message_id = whizbang::MessageId::mint();
    row.destination = "orders";
    row.message_type = "shop::OrderCreated";
    row.envelope_json = envelope_text();
    row.stream_id = whizbang::MessageId::mint().uuid();
    row.is_event = true;
  }
  return rows;
}

std::vector<whizbang::InboxMessage> inbox_rows(std::size_t count) {
  std::vector<whizbang::InboxMessage> rows(count);
  for (whizbang::InboxMessage& row : rows) {
    row.message_id = whizbang::MessageId::mint();
    row.handler_name = "shop::OrderCreated";
    row.message_type = "shop::OrderCreated";
    row.envelope_json = envelope_text();
    row.stream_id = whizbang::MessageId::mint().uuid();
    row.is_event = true;
  }
  return rows;
}

absl::Status store_rows(whizbang::WorkStore& store, Table table, std::size_t count,
                        const whizbang::Uuid& service_id) {
  if (table == Table::Outbox) return store.store_outbox_messages(outbox_rows(count)).status();
  return store.store_inbox_messages(inbox_rows(count), service_id).status();
}

struct Seeded {
  std::unique_ptr<whizbang::WorkStore> store;
  whizbang::Uuid service_id = whizbang::MessageId::mint().uuid();
};

absl::StatusOr<std::unique_ptr<whizbang::WorkStore>> open_store(Backend backend,
                                                                const std::string& name) {
  whizbang::StoreOptions options;
  options.durability = whizbang::Durability::Normal;
  if (backend == Backend::Sqlite) {
    const auto path = std::filesystem::temp_directory_path() / ("whizbang-growth-" + name + ".db");
    std::filesystem::remove(path);
    std::filesystem::remove(path.string() + "-wal");
    std::filesystem::remove(path.string() + "-shm");
    auto store = whizbang::SqliteWorkStore::open(path.string(), options);
    if (!store.ok()) return store.status();
    return std::unique_ptr<whizbang::WorkStore>(*std::move(store));
  }
  auto store = whizbang::PostgresWorkStore::open(bench::fresh_schema(name), options);
  if (!store.ok()) return store.status();
  return std::unique_ptr<whizbang::WorkStore>(*std::move(store));
}

// The store of (backend, table, pending), seeded on first use and kept for the repetitions;
// the previous size's store is closed first (one 1M-row store at a time).
Seeded* seeded(benchmark::State& state, Backend backend, Table table, std::size_t pending) {
  static std::map<std::tuple<Backend, Table, std::size_t>, Seeded> stores;
  const auto key = std::make_tuple(backend, table, pending);
  if (auto found = stores.find(key); found != stores.end()) return &found->second;
  stores.clear();
  const std::string name = std::string(backend == Backend::Sqlite ? "sqlite_" : "pg_") +
                           (table == Table::Outbox ? "outbox_" : "inbox_") +
                           std::to_string(pending);
  auto store = open_store(backend, name);
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return nullptr;
  }
  Seeded fresh;
  fresh.store = *std::move(store);
  for (std::size_t stored = 0; stored < pending; stored += kSeedBatch) {
    const std::size_t count = std::min(kSeedBatch, pending - stored);
    if (absl::Status status = store_rows(*fresh.store, table, count, fresh.service_id);
        !status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      return nullptr;
    }
  }
  return &stores.emplace(key, std::move(fresh)).first->second;
}

void claim_100(benchmark::State& state, Backend backend, Table table) {
  if (backend == Backend::Postgres && std::getenv("WHIZBANG_PG_CONNINFO") == nullptr) {
    state.SkipWithError("WHIZBANG_PG_CONNINFO is not set (./dev.sh growth starts a server)");
    return;
  }
  const auto pending = static_cast<std::size_t>(state.range(0));
  Seeded* fixture = seeded(state, backend, table, pending);
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

void apply_sizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("pending")
      ->Arg(1000)
      ->Arg(100000)
      ->Arg(1000000)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
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

}  // namespace

BENCHMARK_MAIN();
