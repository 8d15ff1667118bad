// The retention purge of `pending` expired rows (half outbox ids of published messages, half
// remembered inbox ids), on SQLite and PostgreSQL. A worker claims outbox work on the same
// store throughout the purge: `worst_claim_ms` is its longest wait, which batching keeps near
// one batch's time (`ms_per_batch`) however many rows expired. One purge per size (seeding a
// million rows takes minutes).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <thread>

#include "growth_stores.hpp"

namespace growth::purge {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The stores' clock: the seeded rows are old once it is moved past their retention.
std::atomic<std::int64_t> g_days_ahead{0};
whizbang::TimePoint shifted_now() {
  return std::chrono::system_clock::now() + std::chrono::hours(24) * g_days_ahead.load();
}

// `count` expired rows: published outbox ids and remembered inbox ids, half each.
absl::Status seed_expired(whizbang::WorkStore& store, std::size_t count,
                          const whizbang::Uuid& service_id) {
  whizbang::WorkBatchRequest done;
  done.claim_outbox = false;
  done.claim_inbox = false;
  const std::vector<whizbang::OutboxMessage> sent = outbox_rows(count / 2);
  const std::vector<whizbang::InboxMessage> received = inbox_rows(count - count / 2);
  if (auto stored = store.store_outbox_messages(sent); !stored.ok()) return stored.status();
  if (auto stored = store.store_inbox_messages(received, service_id); !stored.ok()) {
    return stored.status();
  }
  for (const auto& row : sent) {
    done.completions.push_back(
        {whizbang::WorkSource::Outbox, row.message_id, whizbang::MessageStatus::Published});
  }
  for (const auto& row : received) {
    done.completions.push_back(
        {whizbang::WorkSource::Inbox, row.message_id, whizbang::MessageStatus::EventStored});
  }
  return store.process_work_batch(done).status();
}

void purge_expired(benchmark::State& state, Backend backend, std::size_t batch_size) {
  if (skip_without_postgres(state, backend)) return;
  const auto pending = static_cast<std::size_t>(state.range(0));
  whizbang::StoreOptions options;
  options.now = shifted_now;
  g_days_ahead = 0;
  auto opened = open_store(backend, store_name(backend, "purge", pending), options);
  if (!opened.ok()) {
    state.SkipWithError(std::string(opened.status().message()).c_str());
    return;
  }
  whizbang::WorkStore& store = **opened;
  const whizbang::Uuid service_id = whizbang::MessageId::mint().uuid();
  for (std::size_t stored = 0; stored < pending; stored += kSeedBatch) {
    if (absl::Status status =
            seed_expired(store, std::min(kSeedBatch, pending - stored), service_id);
        !status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      return;
    }
  }
  // Work for the worker to claim while the purge runs (stored now: never expired).
  g_days_ahead = 8;  // past the default retention of 7 days
  if (!store.store_outbox_messages(outbox_rows(1000)).ok()) {
    state.SkipWithError("storing the worker's rows failed");
    return;
  }

  whizbang::PurgeCounts purged;
  Clock::duration purge_time{};
  Clock::duration worst_claim{};
  std::int64_t claims = 0;
  for (auto _ : state) {
    std::atomic<bool> purging{true};
    std::thread worker([&] {
      whizbang::WorkBatchRequest claim;
      claim.claim_inbox = false;
      claim.max_items = kClaim;
      while (purging.load()) {
        const auto started = Clock::now();
        if (!store.process_work_batch(claim).ok()) return;
        worst_claim = std::max(worst_claim, Clock::now() - started);
        ++claims;
      }
    });
    const auto started = Clock::now();
    whizbang::RetentionOptions retention;
    retention.purge_batch_size = batch_size;
    auto result = store.purge(retention);
    purge_time = Clock::now() - started;
    purging = false;
    worker.join();
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
    purged = *result;
  }
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  state.counters["purged"] =
      static_cast<double>(purged.outbox_tombstones + purged.inbox_deduplication);
  state.counters["batches"] = static_cast<double>(purged.transactions);
  state.counters["ms_per_batch"] =
      ms(purge_time) / static_cast<double>(std::max<std::int64_t>(1, purged.transactions));
  state.counters["worst_claim_ms"] = ms(worst_claim);
  state.counters["claims_during_purge"] = static_cast<double>(claims);
}

void purge_sizes(benchmark::internal::Benchmark* benchmark) {
  apply_sizes(benchmark);
  benchmark->Iterations(1)->Unit(benchmark::kMillisecond);
}

constexpr std::size_t kDefaultBatch = whizbang::RetentionOptions{}.purge_batch_size;
// The baseline: the whole purge of a table in one transaction (as before batching).
constexpr std::size_t kOneTransaction = std::numeric_limits<std::int64_t>::max();

void BM_Growth_Sqlite_PurgeExpired(benchmark::State& state) {
  purge_expired(state, Backend::Sqlite, kDefaultBatch);
}
BENCHMARK(BM_Growth_Sqlite_PurgeExpired)->Apply(purge_sizes);
void BM_Growth_Sqlite_PurgeExpiredInOneTransaction(benchmark::State& state) {
  purge_expired(state, Backend::Sqlite, kOneTransaction);
}
BENCHMARK(BM_Growth_Sqlite_PurgeExpiredInOneTransaction)->Apply(purge_sizes);
void BM_Growth_Postgres_PurgeExpired(benchmark::State& state) {
  purge_expired(state, Backend::Postgres, kDefaultBatch);
}
BENCHMARK(BM_Growth_Postgres_PurgeExpired)->Apply(purge_sizes);
void BM_Growth_Postgres_PurgeExpiredInOneTransaction(benchmark::State& state) {
  purge_expired(state, Backend::Postgres, kOneTransaction);
}
BENCHMARK(BM_Growth_Postgres_PurgeExpiredInOneTransaction)->Apply(purge_sizes);

}  // namespace growth::purge
