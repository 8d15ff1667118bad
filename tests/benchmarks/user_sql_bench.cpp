// What a user row costs a handling (docs/guide/17-your-data.md): an inbox worker stores a
// delivered batch of 100 messages and handles them in one group, each handling writing one row
// of the service's own table; against the same path writing the row with the raw driver on the
// native connection (a prepared sqlite3 statement; libpq's PQexecParams), and against the path
// writing nothing, in the same run. SQLite at durability Full; PostgreSQL on the server
// WHIZBANG_PG_CONNINFO names (its benchmarks are registered only when it is set).
//   build/tests/benchmarks/user_sql_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "dispatch_bench_messages.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

constexpr int kBatch = 100;

enum class Row { None, Session, Raw };

const whizbang::MessageTypeInfo* resolve(std::string_view name) {
  return whizbang::generated::user_sql_bench::registry().find_message(name);
}

std::vector<whizbang::TransportMessage> batch() {
  std::vector<whizbang::TransportMessage> messages;
  const whizbang::ServiceInstance sender{"bank", whizbang::MessageId::mint().uuid(), "host", 1};
  for (int i = 0; i < kBatch; ++i) {
    bench::Ping ping;
    ping.n = i;
    const whizbang::Envelope envelope =
        whizbang::Envelope::create(whizbang::AnyMessage::make(ping), sender);
    whizbang::TransportMessage message;
    message.message_id = envelope.message_id;
    message.message_type = std::string(envelope.payload.info()->wire_name);
    message.envelope_json = whizbang::serialize_envelope(envelope);
    messages.push_back(std::move(message));
  }
  return messages;
}

// The handler: writes one row keyed by the message id, or nothing.
whizbang::InboxHandler handler(Row row) {
  return [row](whizbang::InboxHandling& handling) -> absl::Status {
    if (row == Row::None) return absl::OkStatus();
    whizbang::SqlSession& sql = *whizbang::SqlSession::current().value();
    const std::string id = handling.item.message_id.to_string();
    if (row == Row::Session) {
      return sql.execute("INSERT INTO deposits (id, amount) VALUES ($1, $2)", {id, 5}).status();
    }
    return sql.with_native([&](whizbang::NativeConnection native) -> absl::Status {
      if (native.sqlite != nullptr) {
        thread_local sqlite3_stmt* insert = nullptr;
        thread_local sqlite3* prepared_on = nullptr;
        if (prepared_on != native.sqlite) {
          sqlite3_prepare_v3(native.sqlite, "INSERT INTO deposits (id, amount) VALUES (?1, ?2)", -1,
                             SQLITE_PREPARE_PERSISTENT, &insert, nullptr);
          prepared_on = native.sqlite;
        }
        sqlite3_bind_text(insert, 1, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
        sqlite3_bind_int64(insert, 2, 5);
        const int code = sqlite3_step(insert);
        sqlite3_reset(insert);
        return code == SQLITE_DONE ? absl::OkStatus() : absl::InternalError("raw insert failed");
      }
      const char* values[] = {id.c_str(), "5"};
      PGresult* result =
          PQexecParams(native.postgres, "INSERT INTO deposits (id, amount) VALUES ($1, $2)", 2,
                       nullptr, values, nullptr, nullptr, 0);
      const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
      PQclear(result);
      return ok ? absl::OkStatus() : absl::InternalError("raw insert failed");
    });
  };
}

void run(benchmark::State& state, whizbang::WorkStore& store, Row row) {
  {
    whizbang::Transaction schema(store);
    if (!schema.sql().ok() ||
        !schema.sql()
             .value()
             ->execute("CREATE TABLE IF NOT EXISTS deposits (id TEXT PRIMARY KEY, amount BIGINT)")
             .ok() ||
        !schema.commit().ok()) {
      state.SkipWithError("creating the table failed");
      return;
    }
  }
  whizbang::InboxWorkerOptions options;
  options.max_group = kBatch;
  options.max_batch = kBatch;
  options.max_group_duration = std::chrono::seconds(10);
  whizbang::InboxWorker worker(store, resolve, handler(row), options);
  for (auto _ : state) {
    state.PauseTiming();
    const std::vector<whizbang::TransportMessage> messages = batch();
    state.ResumeTiming();
    if (!worker.receive(messages).ok()) state.SkipWithError("receive failed");
    absl::StatusOr<whizbang::InboxCycleResult> cycle = worker.run_once();
    if (!cycle.ok() || cycle->handled != kBatch) state.SkipWithError("a handling failed");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

std::string temp_db(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "whizbang-user-sql-bench";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  return path.string();
}

void sqlite(benchmark::State& state, Row row, const char* name) {
  auto store = whizbang::SqliteWorkStore::open(temp_db(name));
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  run(state, **store, row);
}

void BM_Sqlite_HandlingWritingNothing(benchmark::State& state) {
  sqlite(state, Row::None, "none.db");
}
void BM_Sqlite_HandlingWritingARow_RawStatement(benchmark::State& state) {
  sqlite(state, Row::Raw, "raw.db");
}
void BM_Sqlite_HandlingWritingARow_SqlSession(benchmark::State& state) {
  sqlite(state, Row::Session, "session.db");
}
BENCHMARK(BM_Sqlite_HandlingWritingNothing)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sqlite_HandlingWritingARow_RawStatement)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sqlite_HandlingWritingARow_SqlSession)->Unit(benchmark::kMillisecond)->UseRealTime();

// A fresh schema per benchmark on the server WHIZBANG_PG_CONNINFO names.
void postgres(benchmark::State& state, Row row, const std::string& schema) {
  const std::string conninfo(std::getenv("WHIZBANG_PG_CONNINFO"));
  PGconn* admin = PQconnectdb(conninfo.c_str());
  PQclear(PQexec(
      admin, ("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema).c_str()));
  PQfinish(admin);
  const std::string scoped = conninfo + (conninfo.find('?') == std::string::npos ? "?" : "&") +
                             "options=-csearch_path%3D" + schema;
  auto store = whizbang::PostgresWorkStore::open(scoped, {});
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  run(state, **store, row);
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("WHIZBANG_PG_CONNINFO") != nullptr) {
    for (const auto& [name, row, schema] :
         {std::tuple{"BM_Postgres_HandlingWritingNothing", Row::None, "usql_none"},
          std::tuple{"BM_Postgres_HandlingWritingARow_RawStatement", Row::Raw, "usql_raw"},
          std::tuple{"BM_Postgres_HandlingWritingARow_SqlSession", Row::Session, "usql_session"}}) {
      benchmark::RegisterBenchmark(name,
                                   [row = row, schema = std::string(schema)](
                                       benchmark::State& state) { postgres(state, row, schema); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
