// The inbox's deduplication check as the remembered ids pile up: storing 100 delivered messages
// (each checked against, and added to, the permanent deduplication table) with `pending` ids
// already remembered: 1k, 1M and 10M, on SQLite and PostgreSQL. Goal: the 10M figure at most 1.5
// times the 1k figure. Each iteration stores 100 (timed), then claims and completes them and
// forgets their ids (not timed), so the inbox stays empty and `pending` ids stay remembered.
//
// The remembered ids are written by SQL in one statement, sorted (10M ids through the store's
// API would take most of an hour): ids older than any the store mints (a zero first byte), as a
// long-running service's old ids are, with first_seen_at 0.
#include <libpq-fe.h>
#include <sqlite3.h>

#include "growth_stores.hpp"

namespace growth::dedup {

absl::Status remember_ids_sqlite(const std::string& name, std::size_t count) {
  sqlite3* db = nullptr;
  if (sqlite3_open(sqlite_path(name).c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return absl::InternalError("cannot open the growth store's file");
  }
  const std::string sql =
      "PRAGMA cache_size = -262144;"
      "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT " +
      std::to_string(count) +
      ") INSERT INTO wh_message_deduplication (message_id, first_seen_at) "
      "SELECT id, 0 FROM (SELECT x'00' || randomblob(15) AS id FROM n) ORDER BY id";
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (rc != SQLITE_OK) return absl::InternalError("seeding remembered ids: " + message);
  return absl::OkStatus();
}

absl::Status remember_ids_postgres(const std::string& name, std::size_t count) {
  PGconn* connection = PQconnectdb(bench::schema_conninfo(name).c_str());
  // gen_random_uuid() with its first byte zeroed: older than any id the store mints.
  const std::string sql =
      "INSERT INTO wh_message_deduplication (message_id, first_seen_at) "
      "SELECT encode(overlay(uuid_send(gen_random_uuid()) placing '\\x00'::bytea from 1 for 1), "
      "'hex')::uuid, 0 FROM generate_series(1, " +
      std::to_string(count) + ") ORDER BY 1";  // seeded() analyzes it (settle_schema)
  PGresult* result = PQexec(connection, sql.c_str());
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  const std::string message = PQerrorMessage(connection);
  PQclear(result);
  PQfinish(connection);
  if (!ok) return absl::InternalError("seeding remembered ids: " + message);
  return absl::OkStatus();
}

// Forgets the ids the iterations added (the seeded ones have first_seen_at 0), so every
// iteration checks against `pending` remembered ids, not a number that grows with the run.
absl::Status forget_new_ids(Backend backend, const std::string& name) {
  static constexpr const char* kForget =
      "DELETE FROM wh_message_deduplication WHERE first_seen_at > 0";
  if (backend == Backend::Sqlite) {
    sqlite3* db = nullptr;
    const bool ok = sqlite3_open(sqlite_path(name).c_str(), &db) == SQLITE_OK &&
                    sqlite3_exec(db, kForget, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok ? absl::OkStatus() : absl::InternalError("forgetting the new ids failed");
  }
  PGconn* connection = PQconnectdb(bench::schema_conninfo(name).c_str());
  PGresult* result = PQexec(connection, kForget);
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  PQclear(result);
  PQfinish(connection);
  return ok ? absl::OkStatus() : absl::InternalError("forgetting the new ids failed");
}

void dedup_100(benchmark::State& state, Backend backend) {
  if (skip_without_postgres(state, backend)) return;
  const auto remembered = static_cast<std::size_t>(state.range(0));
  // The prepare step writes every id at once (the per-part step has nothing left to do).
  const std::string name = store_name(backend, "dedup", remembered);
  Seeded* fixture = seeded(
      state, backend, "dedup", remembered,
      [](whizbang::WorkStore&, std::size_t, const whizbang::Uuid&) { return absl::OkStatus(); },
      [&](whizbang::WorkStore&) {
        return backend == Backend::Sqlite ? remember_ids_sqlite(name, remembered)
                                          : remember_ids_postgres(name, remembered);
      });
  if (fixture == nullptr) return;
  whizbang::WorkStore& store = *fixture->store;
  whizbang::WorkBatchRequest claim;
  claim.claim_outbox = false;
  claim.max_items = kClaim;
  for (auto _ : state) {
    auto stored = store.store_inbox_messages(inbox_rows(kClaim), fixture->service_id);
    state.PauseTiming();
    auto claimed = store.process_work_batch(claim);
    if (!stored.ok() || !claimed.ok() || claimed->size() != kClaim) {
      state.SkipWithError("storing or claiming the 100 messages failed");
      break;
    }
    whizbang::WorkBatchRequest settle;
    settle.claim_outbox = false;
    settle.claim_inbox = false;
    for (const whizbang::WorkItem& item : *claimed) {
      settle.completions.push_back(
          {whizbang::WorkSource::Inbox, item.message_id, whizbang::MessageStatus::EventStored});
    }
    if (!store.process_work_batch(settle).ok() || !forget_new_ids(backend, name).ok()) {
      state.SkipWithError("completing the messages or forgetting their ids failed");
      break;
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kClaim));
}

void dedup_sizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("pending")
      ->Arg(1000)
      ->Arg(1000000)
      ->Arg(10000000)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}

void BM_Growth_Sqlite_InboxDedup100(benchmark::State& state) { dedup_100(state, Backend::Sqlite); }
BENCHMARK(BM_Growth_Sqlite_InboxDedup100)->Apply(dedup_sizes);
void BM_Growth_Postgres_InboxDedup100(benchmark::State& state) {
  dedup_100(state, Backend::Postgres);
}
BENCHMARK(BM_Growth_Postgres_InboxDedup100)->Apply(dedup_sizes);

}  // namespace growth::dedup
