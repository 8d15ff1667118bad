// The PostgreSQL store against raw libpq doing the same row work, same server, same run.
//
// - Outbox rows/s: PostgresWorkStore::store_outbox_messages of 1000-row batches (one transaction
//   each) against a raw pipelined INSERT of identical rows into the store's own table (BEGIN,
//   1000 prepared inserts, COMMIT in one round trip). The store also passes every id through its
//   dedup table (wh_outbox_ids); the raw insert does not dedup. A second raw baseline writes the
//   dedup table's row too (the store's writes, by hand).
// - Claims: process_work_batch claiming 100 outbox rows and a complete_work publishing them,
//   against a raw SKIP LOCKED claim of 100 (one UPDATE … RETURNING) and a DELETE of them, each
//   its own transaction. Rows are inserted outside the timed part. The 100 streams stay the
//   same from one iteration to the next, so each stream's handled (deleted) rows pile up
//   between vacuums, as a busy aggregate's do: the store's stream-order check walks past them.
//
// - Wake-up across processes: the time from a commit's return in one store to the commit listener
//   of another store (its LISTEN connection) running, one inbox row per commit; reported as the
//   mean per wake-up (commit included: "real_time") and as a counter of the wake-up alone.
//
// Needs a server: WHIZBANG_PG_CONNINFO, e.g.
//   tests/support/postgres-server.sh up /tmp/wh-bench
//   export
//   WHIZBANG_PG_CONNINFO='postgresql:///whizbang_test?host=/tmp/wh-bench&port=55432&user=whizbang'
//   taskset -c 1 build/tests/benchmarks/postgres_bench
#include <benchmark/benchmark.h>
#include <libpq-fe.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "bench_schema.hpp"
#include "outbox_rows.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace {

constexpr int kBatch = 1000;
constexpr int kClaim = 100;

std::unique_ptr<whizbang::PostgresWorkStore> open_store(benchmark::State& state,
                                                        const char* schema) {
  auto store = whizbang::PostgresWorkStore::open(bench::fresh_schema(schema));
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return nullptr;
  }
  return *std::move(store);
}

bool ok(PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  PQclear(result);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

constexpr const char* kRawInsert =
    "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, stream_id, "
    "is_event, status, attempts, instance_id, lease_expiry, created_at) VALUES ($1::uuid, $2, $3, "
    "$4, $5::uuid, false, 1, 0, $6::uuid, $7::bigint, $8::bigint)";

constexpr const char* kRawInsertId =
    "INSERT INTO wh_outbox_ids (message_id, stored_at) VALUES ($1::uuid, $2::bigint) "
    "ON CONFLICT (message_id) DO NOTHING";

// Inserts `messages` with the raw statement, pipelined, in one transaction; `with_id_table`:
// each id first goes to the store's dedup table, as the store's insert does.
bool raw_insert(PGconn* conn, const std::vector<whizbang::OutboxMessage>& messages,
                const std::string& instance, bool with_id_table = false) {
  PQenterPipelineMode(conn);
  PQsendQueryParams(conn, "BEGIN", 0, nullptr, nullptr, nullptr, nullptr, 0);
  std::vector<std::string> ids;
  for (const whizbang::OutboxMessage& m : messages) {
    const std::string id = m.message_id.uuid().to_string();
    const std::string stream = m.stream_id->to_string();
    const char* values[] = {
        id.c_str(),     m.destination->c_str(), m.message_type.c_str(), m.envelope_json.c_str(),
        stream.c_str(), instance.c_str(),       "1718000300000000",     "1718000000000000"};
    if (with_id_table) {
      const char* id_values[] = {id.c_str(), "1718000000000000"};
      PQsendQueryPrepared(conn, "insert_id", 2, id_values, nullptr, nullptr, 0);
    }
    PQsendQueryPrepared(conn, "insert", 8, values, nullptr, nullptr, 0);
  }
  PQsendQueryParams(conn, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0);
  PQpipelineSync(conn);
  bool all_ok = true;
  const std::size_t statements = messages.size() * (with_id_table ? 2 : 1) + 2;
  for (std::size_t i = 0; i < statements; ++i) {
    all_ok = ok(PQgetResult(conn)) && all_ok;
    while (PGresult* rest = PQgetResult(conn)) PQclear(rest);
  }
  PQclear(PQgetResult(conn));  // the sync
  PQexitPipelineMode(conn);
  return all_ok;
}

PGconn* raw_connection(benchmark::State& state, const char* schema) {
  auto store = open_store(state, schema);  // the store's schema, created by its migrations
  if (store == nullptr) return nullptr;
  store.reset();
  const std::string conninfo = bench::schema_conninfo(schema);
  PGconn* conn = PQconnectdb(conninfo.c_str());
  PQclear(PQprepare(conn, "insert", kRawInsert, 0, nullptr));
  PQclear(PQprepare(conn, "insert_id", kRawInsertId, 0, nullptr));
  return conn;
}

void BM_PostgresStoreOutboxMessages(benchmark::State& state) {
  auto store = open_store(state, "store_outbox");
  if (store == nullptr) return;
  std::vector<whizbang::OutboxMessage> messages = bench::outbox_rows(kBatch, /*is_event=*/false);
  for (auto _ : state) {
    for (whizbang::OutboxMessage& m : messages) m.message_id = whizbang::MessageId::mint();
    auto stored = store->store_outbox_messages(messages);
    if (!stored.ok()) state.SkipWithError(std::string(stored.status().message()).c_str());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_PostgresStoreOutboxMessages)->Unit(benchmark::kMillisecond)->UseRealTime();

// Raw pipelined inserts of kBatch rows per iteration into the schema `schema`; `with_id_table`:
// each id first goes to the dedup table (raw_insert).
void raw_insert_batches(benchmark::State& state, const char* schema, bool with_id_table) {
  PGconn* conn = raw_connection(state, schema);
  if (conn == nullptr) return;
  std::vector<whizbang::OutboxMessage> messages = bench::outbox_rows(kBatch, /*is_event=*/false);
  const std::string instance = whizbang::MessageId::mint().uuid().to_string();
  for (auto _ : state) {
    for (whizbang::OutboxMessage& m : messages) m.message_id = whizbang::MessageId::mint();
    if (!raw_insert(conn, messages, instance, with_id_table)) {
      state.SkipWithError("raw insert failed");
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  PQfinish(conn);
}

void BM_RawLibpqPipelinedInsert(benchmark::State& state) {
  raw_insert_batches(state, "raw_outbox", /*with_id_table=*/false);
}
BENCHMARK(BM_RawLibpqPipelinedInsert)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same, each id passed through the dedup table first (one more row and index entry per
// message): what the store's insert writes, without its batching or its first-of-an-id rule.
void BM_RawLibpqPipelinedInsertWithIdTable(benchmark::State& state) {
  raw_insert_batches(state, "raw_outbox_ids", /*with_id_table=*/true);
}
BENCHMARK(BM_RawLibpqPipelinedInsertWithIdTable)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PostgresStoreClaimAndPublish100(benchmark::State& state) {
  auto store = open_store(state, "store_claim");
  if (store == nullptr) return;
  std::vector<whizbang::OutboxMessage> messages = bench::outbox_rows(kClaim, /*is_event=*/false);
  whizbang::WorkBatchRequest claim;
  claim.claim_inbox = false;
  claim.max_items = kClaim;
  for (auto _ : state) {
    state.PauseTiming();
    for (whizbang::OutboxMessage& m : messages) m.message_id = whizbang::MessageId::mint();
    (void)store->store_outbox_messages(messages);
    state.ResumeTiming();
    auto items = store->process_work_batch(claim);
    if (!items.ok() || items->size() != static_cast<std::size_t>(kClaim)) {
      state.SkipWithError("claim failed");
      break;
    }
    std::vector<whizbang::WorkCompletion> published;
    for (const whizbang::WorkItem& item : *items) {
      published.push_back({whizbang::WorkSource::Outbox, item.message_id,
                           whizbang::MessageStatus::Stored | whizbang::MessageStatus::Published});
    }
    if (!store->complete_work(published, {}).ok()) state.SkipWithError("complete failed");
  }
  state.SetItemsProcessed(state.iterations() * kClaim);
}
BENCHMARK(BM_PostgresStoreClaimAndPublish100)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_RawSkipLockedClaimAndDelete100(benchmark::State& state) {
  PGconn* conn = raw_connection(state, "raw_claim");
  if (conn == nullptr) return;
  PQclear(PQprepare(conn, "claim",
                    "UPDATE wh_outbox o SET instance_id = $1::uuid, lease_expiry = $2::bigint "
                    "FROM (SELECT message_id FROM wh_outbox WHERE processed_at IS NULL AND "
                    "(instance_id IS NULL OR lease_expiry < $3::bigint OR instance_id = $1::uuid) "
                    "ORDER BY message_id LIMIT $4::bigint FOR UPDATE SKIP LOCKED) c "
                    "WHERE o.message_id = c.message_id RETURNING o.message_id, o.destination, "
                    "o.message_type, o.event_data, o.stream_id, o.is_event, o.status, o.attempts",
                    0, nullptr));
  PQclear(PQprepare(conn, "delete", "DELETE FROM wh_outbox WHERE message_id = ANY($1::uuid[])", 0,
                    nullptr));
  std::vector<whizbang::OutboxMessage> messages = bench::outbox_rows(kClaim, /*is_event=*/false);
  const std::string instance = whizbang::MessageId::mint().uuid().to_string();
  for (auto _ : state) {
    state.PauseTiming();
    for (whizbang::OutboxMessage& m : messages) m.message_id = whizbang::MessageId::mint();
    raw_insert(conn, messages, instance);
    state.ResumeTiming();
    const char* claim_values[] = {instance.c_str(), "1718000600000000", "1718000000000000", "100"};
    PGresult* claimed = PQexecPrepared(conn, "claim", 4, claim_values, nullptr, nullptr, 0);
    std::string ids = "{";
    for (int row = 0; row < PQntuples(claimed); ++row) {
      if (row > 0) ids += ',';
      ids += PQgetvalue(claimed, row, 0);
    }
    ids += '}';
    if (PQntuples(claimed) != kClaim) state.SkipWithError("raw claim failed");
    PQclear(claimed);
    const char* delete_values[] = {ids.c_str()};
    if (!ok(PQexecPrepared(conn, "delete", 1, delete_values, nullptr, nullptr, 0))) {
      state.SkipWithError("raw delete failed");
    }
  }
  state.SetItemsProcessed(state.iterations() * kClaim);
  PQfinish(conn);
}
BENCHMARK(BM_RawSkipLockedClaimAndDelete100)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PostgresWakeUpAcrossStores(benchmark::State& state) {
  auto sender = open_store(state, "wake");
  if (sender == nullptr) return;
  auto receiver = whizbang::PostgresWorkStore::open(bench::schema_conninfo("wake"));
  if (!receiver.ok()) {
    state.SkipWithError(std::string(receiver.status().message()).c_str());
    return;
  }
  std::mutex mutex;
  std::condition_variable woke;
  std::int64_t wakeups = 0;
  std::chrono::steady_clock::time_point woke_at;
  const int listener = (*receiver)->add_commit_listener([&](const whizbang::CommitInfo&) {
    std::lock_guard lock(mutex);
    woke_at = std::chrono::steady_clock::now();
    ++wakeups;
    woke.notify_all();
  });
  whizbang::InboxMessage message;
  message.handler_name = "h";
  message.message_type = "shop::OrderCreated";
  message.envelope_json = "{}";
  double wake_micros = 0;
  for (auto _ : state) {
    message.message_id = whizbang::MessageId::mint();
    std::int64_t before = 0;
    {
      std::lock_guard lock(mutex);
      before = wakeups;
    }
    if (!sender->store_inbox_messages({&message, 1}, whizbang::MessageId::mint().uuid()).ok()) {
      state.SkipWithError("store failed");
      break;
    }
    const auto committed = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex);
    woke.wait(lock, [&] { return wakeups > before; });
    wake_micros += std::chrono::duration<double, std::micro>(woke_at - committed).count();
  }
  (*receiver)->remove_commit_listener(listener);
  state.counters["wake_after_commit_us"] =
      benchmark::Counter(wake_micros / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_PostgresWakeUpAcrossStores)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
