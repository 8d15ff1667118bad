// What one message costs the database: PostgreSQL's commits, row writes and write-ahead log per
// message that crosses two services (producer -> outbox -> drain worker -> in-process transport
// -> consumer's inbox -> receptor), the inputs of docs/guide/20-capacity.md's model.
//
// Counted by the server, not timed: pg_stat_user_tables (rows inserted, updated and deleted per
// table of the two services' schemas), pg_stat_database (commits of the benchmark's own
// database) and pg_current_wal_lsn (bytes of write-ahead log, for the whole server). A run opens
// both stores on fresh schemas, moves N Ticks (published `publish_batch` per transaction, both
// services stepped), closes the stores and waits for their server processes to end: a backend
// reports its counts when it ends. Two runs of different N: their difference over the difference
// in N is what one more message costs, without the stores' opening (migrations) and closing.
//
// The figures are only meaningful on a server nothing else writes to (./dev.sh capacity starts
// one); in the test suite's smoke run other tests share the server and the figures mean nothing.
//   ./dev.sh capacity
#include <benchmark/benchmark.h>
#include <libpq-fe.h>

#include <whizbang/host/service_host.hpp>
#include <whizbang/store/open_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "bench_schema.hpp"
#include "dispatch_bench_messages.hpp"
#include "e2e_bench_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

// Tags the stores' connections, so a run can wait for exactly its own server processes to end.
constexpr const char* kApplicationName = "whizbang_capacity_bench";

struct TableWrites {
  std::int64_t inserted = 0;
  std::int64_t updated = 0;
  std::int64_t hot_updated = 0;  // updates that stayed on their page (no index entries written)
  std::int64_t deleted = 0;
};

// What the server counted, at one moment.
struct ServerCounts {
  std::map<std::string, TableWrites> tables;  // "schema.table"
  std::int64_t commits = 0;
  double wal_bytes = 0;
};

std::int64_t integer_at(PGresult* result, int row, int column) {
  return std::strtoll(PQgetvalue(result, row, column), nullptr, 10);
}

ServerCounts read_counts(PGconn* connection) {
  ServerCounts counts;
  // One transaction: the three reads see the same statistics snapshot.
  PQclear(PQexec(connection, "BEGIN"));
  PGresult* tables = PQexec(connection,
                            "SELECT schemaname || '.' || relname, n_tup_ins, n_tup_upd, "
                            "n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables "
                            "WHERE schemaname LIKE 'bench_capacity_%'");
  for (int row = 0; row < PQntuples(tables); ++row) {
    counts.tables[PQgetvalue(tables, row, 0)] = {
        integer_at(tables, row, 1), integer_at(tables, row, 2), integer_at(tables, row, 3),
        integer_at(tables, row, 4)};
  }
  PQclear(tables);
  PGresult* commits = PQexec(
      connection, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
  if (PQntuples(commits) == 1) counts.commits = integer_at(commits, 0, 0);
  PQclear(commits);
  PGresult* wal = PQexec(connection, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn");
  if (PQntuples(wal) == 1) counts.wal_bytes = std::strtod(PQgetvalue(wal, 0, 0), nullptr);
  PQclear(wal);
  PQclear(PQexec(connection, "COMMIT"));
  return counts;
}

// Waits until the stores' server processes have ended (and so reported their counts); polled,
// as the server offers nothing to wait on. False after 30 s.
bool stores_disconnected(PGconn* connection) {
  const std::string query =
      std::string("SELECT count(*) FROM pg_stat_activity WHERE application_name = '") +
      kApplicationName + "'";
  for (int attempt = 0; attempt < 3000; ++attempt) {
    PGresult* result = PQexec(connection, query.c_str());
    const bool gone = PQntuples(result) == 1 && integer_at(result, 0, 0) == 0;
    PQclear(result);
    if (gone) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

struct Node {
  Node(const std::string& location, const std::string& name, whizbang::Transport& transport,
       const whizbang::Registry& registry, bool subscribed) {
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = name;
    store = *whizbang::open_work_store(location, store_options);
    services.add<bench::Counter>(counter).add<bench::Tally>(tally);
    whizbang::HostOptions options;
    options.service_name = name;
    options.store = store.get();
    options.transport = &transport;
    host = *whizbang::ServiceHost::create(registry, services, std::move(options));
    if (subscribed) (void)host->subscribe();
  }
  bench::Counter counter;
  bench::Tally tally;
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;
};

// One run: `messages` Ticks from a producer to a consumer, each on a fresh schema; what the
// server counted meanwhile (the stores' opening and closing included).
struct RunCounts {
  ServerCounts before;
  ServerCounts after;
  bool ok = false;
};

RunCounts run(PGconn* admin, std::int64_t messages, std::int64_t publish_batch) {
  const std::string tag = std::string("&application_name=") + kApplicationName;
  const std::string producer_store = bench::fresh_schema("capacity_producer") + tag;
  const std::string consumer_store = bench::fresh_schema("capacity_consumer") + tag;
  RunCounts counts;
  counts.before = read_counts(admin);
  {
    whizbang::InProcessTransport transport;
    Node producer(producer_store, "producer", transport, bench::producer_registry(), false);
    Node consumer(consumer_store, "consumer", transport,
                  whizbang::generated::capacity_bench::registry(), true);
    for (std::int64_t sent = 0; sent < messages;) {
      whizbang::Transaction transaction(*producer.store);
      for (std::int64_t i = 0; i < publish_batch && sent < messages; ++i, ++sent) {
        bench::Tick tick;
        tick.sent_at_ns = bench::steady_now_ns();
        (void)producer.host->dispatcher().publish(whizbang::Route::Outbox(tick));
      }
      if (!transaction.commit().ok()) return counts;
    }
    while (consumer.tally.count() < messages) {
      (void)producer.host->run_once();
      (void)consumer.host->run_once();
    }
  }
  counts.ok = stores_disconnected(admin);
  counts.after = read_counts(admin);
  return counts;
}

// What `large` counted beyond `small`, per message of the difference.
struct PerMessage {
  std::map<std::string, TableWrites> tables;  // scaled by 1000 messages, for printing
  double commits = 0;
  double wal_bytes = 0;
  double inserted = 0;
  double updated = 0;
  double hot_updated = 0;
  double deleted = 0;
};

PerMessage per_message(const RunCounts& small, const RunCounts& large, std::int64_t messages) {
  PerMessage result;
  const auto delta = [](const RunCounts& run, auto member) {
    return static_cast<double>(run.after.*member - run.before.*member);
  };
  const double n = static_cast<double>(messages);
  result.commits =
      (delta(large, &ServerCounts::commits) - delta(small, &ServerCounts::commits)) / n;
  result.wal_bytes =
      (delta(large, &ServerCounts::wal_bytes) - delta(small, &ServerCounts::wal_bytes)) / n;
  // Fresh schemas: each run's tables start at zero, so "after" is the run's own count.
  for (const auto& [table, writes] : large.after.tables) {
    const TableWrites base =
        small.after.tables.contains(table) ? small.after.tables.at(table) : TableWrites{};
    TableWrites& kept = result.tables[table];
    kept.inserted = (writes.inserted - base.inserted) * 1000 / messages;
    kept.updated = (writes.updated - base.updated) * 1000 / messages;
    kept.hot_updated = (writes.hot_updated - base.hot_updated) * 1000 / messages;
    kept.deleted = (writes.deleted - base.deleted) * 1000 / messages;
    result.inserted += static_cast<double>(writes.inserted - base.inserted) / n;
    result.updated += static_cast<double>(writes.updated - base.updated) / n;
    result.hot_updated += static_cast<double>(writes.hot_updated - base.hot_updated) / n;
    result.deleted += static_cast<double>(writes.deleted - base.deleted) / n;
  }
  return result;
}

void print_tables(const PerMessage& costs, std::int64_t publish_batch) {
  std::printf("\nrow writes per 1000 messages, published %lld per transaction:\n",
              static_cast<long long>(publish_batch));
  std::printf("%-52s %9s %9s %9s %9s\n", "table", "inserted", "updated", "HOT", "deleted");
  for (const auto& [table, writes] : costs.tables) {
    if (writes.inserted + writes.updated + writes.deleted == 0) continue;
    std::printf("%-52s %9lld %9lld %9lld %9lld\n", table.c_str(),
                static_cast<long long>(writes.inserted), static_cast<long long>(writes.updated),
                static_cast<long long>(writes.hot_updated), static_cast<long long>(writes.deleted));
  }
  std::fflush(stdout);
}

// The benchmark's time is the larger run's (both stores opened and closed included); its
// counters are the per-message figures.
void BM_PostgresCostPerMessage(benchmark::State& state) {
  const char* conninfo = std::getenv("WHIZBANG_PG_CONNINFO");
  if (conninfo == nullptr) return state.SkipWithError("no server (WHIZBANG_PG_CONNINFO)");
  const std::int64_t publish_batch = state.range(0);
  constexpr std::int64_t kSmall = 200;
  constexpr std::int64_t kLarge = 1200;
  PGconn* admin = PQconnectdb(conninfo);
  PerMessage costs;
  for (auto _ : state) {
    state.PauseTiming();
    const RunCounts small = run(admin, kSmall, publish_batch);
    state.ResumeTiming();
    const RunCounts large = run(admin, kLarge, publish_batch);
    if (!small.ok || !large.ok) {
      state.SkipWithError("a run failed, or its connections did not end within 30 s");
      break;
    }
    costs = per_message(small, large, kLarge - kSmall);
  }
  PQfinish(admin);
  state.counters["commits"] = costs.commits;
  state.counters["wal_bytes"] = costs.wal_bytes;
  state.counters["inserted"] = costs.inserted;
  state.counters["updated"] = costs.updated;
  state.counters["hot_updated"] = costs.hot_updated;
  state.counters["deleted"] = costs.deleted;
  print_tables(costs, publish_batch);
}
BENCHMARK(BM_PostgresCostPerMessage)
    ->ArgName("publish_batch")
    ->Arg(1)
    ->Arg(100)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
