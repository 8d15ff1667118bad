// Outbox rows/s through SqliteWorkStore::store_outbox_messages against a raw sqlite3 prepared
// insert of identical rows into an identical table, both one transaction per 1000-row batch, same
// WAL/synchronous settings (NORMAL), same run. Target: store >= 0.7 x raw.
//
// An idle poll (process_work_batch on a store with nothing to claim) against a raw sqlite3 read
// transaction of the same two claim queries' shape, and against the same poll forced through the
// write path (a renewal in the request: BEGIN IMMEDIATE, heartbeat, synced commit; what every
// idle poll cost before polls that find nothing became reads). Durability Full.
//
//   build-store/tests/benchmarks/store_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "outbox_rows.hpp"
#include "store/sqlite/migrations.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace {

constexpr int kBatch = 1000;

std::string temp_db(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / "whizbang-store-bench";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(path.string() + suffix);
  }
  return path.string();
}

// The store's whole schema (every migration), so the raw baseline maintains the same indexes.
void create_schema(sqlite3* db) {
  for (const whizbang::sqlite::Migration& migration : whizbang::sqlite::migrations()) {
    const std::string sql(migration.sql);
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  }
}

void BM_StoreOutboxMessages(benchmark::State& state) {
  whizbang::StoreOptions options;
  options.durability = whizbang::Durability::Normal;  // the raw baseline's synchronous=NORMAL
  auto store = whizbang::SqliteWorkStore::open(temp_db("store.db"), options);
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  std::vector<whizbang::OutboxMessage> messages = bench::outbox_rows(kBatch, /*is_event=*/true);
  for (auto _ : state) {
    for (whizbang::OutboxMessage& m : messages) m.message_id = whizbang::MessageId::mint();
    auto stored = (*store)->store_outbox_messages(messages);
    if (!stored.ok()) state.SkipWithError("store_outbox_messages failed");
    benchmark::DoNotOptimize(stored);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_StoreOutboxMessages)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RawSqlitePreparedInsert(benchmark::State& state) {
  sqlite3* db = nullptr;
  sqlite3_open(temp_db("raw.db").c_str(), &db);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nullptr, nullptr,
               nullptr);
  create_schema(db);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, "
                     "scope, stream_id, is_event, status, attempts, instance_id, lease_expiry, "
                     "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, 0, ?8, ?9, ?10)",
                     -1, &insert, nullptr);
  std::vector<whizbang::OutboxMessage> messages = bench::outbox_rows(kBatch, /*is_event=*/true);
  const whizbang::Uuid instance = whizbang::MessageId::mint().uuid();
  for (auto _ : state) {
    sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    for (whizbang::OutboxMessage& m : messages) {
      m.message_id = whizbang::MessageId::mint();
      sqlite3_bind_blob(insert, 1, m.message_id.uuid().bytes().data(), 16, SQLITE_STATIC);
      sqlite3_bind_text(insert, 2, m.destination->data(), static_cast<int>(m.destination->size()),
                        SQLITE_STATIC);
      sqlite3_bind_text(insert, 3, m.message_type.data(), static_cast<int>(m.message_type.size()),
                        SQLITE_STATIC);
      sqlite3_bind_text(insert, 4, m.envelope_json.data(), static_cast<int>(m.envelope_json.size()),
                        SQLITE_STATIC);
      sqlite3_bind_null(insert, 5);
      sqlite3_bind_blob(insert, 6, m.stream_id->bytes().data(), 16, SQLITE_STATIC);
      sqlite3_bind_int64(insert, 7, 1);
      sqlite3_bind_blob(insert, 8, instance.bytes().data(), 16, SQLITE_STATIC);
      sqlite3_bind_int64(insert, 9, 1718000300000000);
      sqlite3_bind_int64(insert, 10, 1718000000000000);
      if (sqlite3_step(insert) != SQLITE_DONE) state.SkipWithError("raw insert failed");
      sqlite3_reset(insert);
    }
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  sqlite3_finalize(insert);
  sqlite3_close(db);
}
BENCHMARK(BM_RawSqlitePreparedInsert)->Unit(benchmark::kMillisecond)->UseRealTime();

void idle_poll(benchmark::State& state, bool force_write_path) {
  auto store = whizbang::SqliteWorkStore::open(temp_db("idle.db"));
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  whizbang::WorkBatchRequest request;
  if (force_write_path)
    request.renewals.push_back({whizbang::WorkSource::Outbox, whizbang::MessageId::mint()});
  for (auto _ : state) {
    auto items = (*store)->process_work_batch(request);
    if (!items.ok() || !items->empty()) state.SkipWithError("the poll claimed or failed");
    benchmark::DoNotOptimize(items);
  }
}
void BM_IdlePoll(benchmark::State& state) { idle_poll(state, false); }
BENCHMARK(BM_IdlePoll)->Unit(benchmark::kMicrosecond)->UseRealTime();
void BM_IdlePoll_WritePath(benchmark::State& state) { idle_poll(state, true); }
BENCHMARK(BM_IdlePoll_WritePath)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_RawSqliteReadTransaction(benchmark::State& state) {
  sqlite3* db = nullptr;
  sqlite3_open(temp_db("raw-read.db").c_str(), &db);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", nullptr, nullptr, nullptr);
  create_schema(db);
  sqlite3_stmt* outbox = nullptr;
  sqlite3_stmt* inbox = nullptr;
  sqlite3_prepare_v2(db, "SELECT message_id FROM wh_outbox WHERE processed_at IS NULL LIMIT 1", -1,
                     &outbox, nullptr);
  sqlite3_prepare_v2(db, "SELECT message_id FROM wh_inbox WHERE processed_at IS NULL LIMIT 1", -1,
                     &inbox, nullptr);
  for (auto _ : state) {
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    for (sqlite3_stmt* query : {outbox, inbox}) {
      if (sqlite3_step(query) != SQLITE_DONE) state.SkipWithError("raw read found a row");
      sqlite3_reset(query);
    }
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  }
  sqlite3_finalize(outbox);
  sqlite3_finalize(inbox);
  sqlite3_close(db);
}
BENCHMARK(BM_RawSqliteReadTransaction)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
