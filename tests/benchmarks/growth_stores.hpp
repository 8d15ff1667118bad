// What the growth curves share (growth_bench: growth_claims.cpp, growth_dedup.cpp,
// growth_events.cpp, growth_purge.cpp): the backends, the rows they seed, and one seeded store kept
// per curve and size, so the repetitions of a size reuse it (seeding a million rows takes about a
// minute).
#pragma once

#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench_schema.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace growth {

inline constexpr std::size_t kClaim = 100;
inline constexpr std::size_t kSeedBatch = 10000;

enum class Backend { Sqlite, Postgres };

inline const char* backend_name(Backend backend) {
  return backend == Backend::Sqlite ? "sqlite" : "pg";
}

// A small envelope (~200 bytes): the claims read keys and leases, and 1M rows stay ~300 MB.
inline const std::string& envelope_text() {
  static const std::string text =
      "{\"v\":1,\"id\":\"0190f3c4-aaaa-7bbb-8ccc-000000000001\",\"p\":{\"order_id\":\"o-1\","
      "\"amount\":129.5},\"h\":[{\"si\":{\"sn\":\"orders\",\"ii\":\"0190f3c4-aaaa-7bbb-8ccc-"
      "000000000002\",\"hn\":\"host-1\",\"pi\":4242},\"ts\":1718000000000001,\"to\":\"orders\"}]}";
  return text;
}

inline constexpr const char* kEventType = "shop::OrderCreated";

// `count` outbox rows for the transport ("orders"), or with `event_store_only` events that go to
// the event store (and to the perspectives associated with their type) as they are stored.
inline std::vector<whizbang::OutboxMessage> outbox_rows(std::size_t count,
                                                        bool event_store_only = false) {
  std::vector<whizbang::OutboxMessage> rows(count);
  for (whizbang::OutboxMessage& row : rows) {
    row.message_id = whizbang::MessageId::mint();
    if (!event_store_only) row.destination = "orders";
    row.message_type = kEventType;
    row.envelope_json = envelope_text();
    row.stream_id = whizbang::MessageId::mint().uuid();
    row.is_event = true;
  }
  return rows;
}

inline std::vector<whizbang::InboxMessage> inbox_rows(std::size_t count) {
  std::vector<whizbang::InboxMessage> rows(count);
  for (whizbang::InboxMessage& row : rows) {
    row.message_id = whizbang::MessageId::mint();
    row.handler_name = kEventType;
    row.message_type = kEventType;
    row.envelope_json = envelope_text();
    row.stream_id = whizbang::MessageId::mint().uuid();
    row.is_event = true;
  }
  return rows;
}

// A PostgreSQL curve without a server: skipped, saying how to get one.
inline bool skip_without_postgres(benchmark::State& state, Backend backend) {
  if (backend == Backend::Postgres && std::getenv("WHIZBANG_PG_CONNINFO") == nullptr) {
    state.SkipWithError("WHIZBANG_PG_CONNINFO is not set (./dev.sh growth starts a server)");
    return true;
  }
  return false;
}

// The name seeded() gives the store of (backend, curve, pending): its SQLite file's and its
// PostgreSQL schema's.
inline std::string store_name(Backend backend, const std::string& curve, std::size_t pending) {
  return std::string(backend_name(backend)) + "_" + curve + "_" + std::to_string(pending);
}

// The file of the SQLite store `name`.
inline std::string sqlite_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("whizbang-growth-" + name + ".db")).string();
}

inline absl::StatusOr<std::unique_ptr<whizbang::WorkStore>> open_store(
    Backend backend, const std::string& name, whizbang::StoreOptions options = {}) {
  options.durability = whizbang::Durability::Normal;
  if (backend == Backend::Sqlite) {
    const std::string path = sqlite_path(name);
    std::filesystem::remove(path);
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
    auto store = whizbang::SqliteWorkStore::open(path, options);
    if (!store.ok()) return store.status();
    return std::unique_ptr<whizbang::WorkStore>(*std::move(store));
  }
  auto store = whizbang::PostgresWorkStore::open(bench::fresh_schema(name), options);
  if (!store.ok()) return store.status();
  return std::unique_ptr<whizbang::WorkStore>(*std::move(store));
}

struct Seeded {
  std::unique_ptr<whizbang::WorkStore> store;
  whizbang::Uuid service_id = whizbang::MessageId::mint().uuid();
};

// What a PostgreSQL store looks like when it is measured. A seed deletes as many rows as it
// leaves (each part passes through the store as it would in service), and until a vacuum the
// deleted rows' index entries lead every claim's walk. Either way the seed's writes are
// checkpointed first: on two cores the server writing a million rows' pages out, or autovacuum
// reading them, slowed the measured client and server by up to half.
enum class AtRest {
  // Vacuumed and analyzed after the seed, as autovacuum leaves a store within a minute or two
  // (autovacuum_naptime): the cost of the store's size.
  Vacuumed,
  // Measured straight after the seed: the cost of a million messages handled since the last
  // vacuum.
  BeforeVacuum,
};

// Settles the benchmark schema `name` (bench_schema.hpp) as `at_rest` says.
inline void settle_schema(const std::string& name, AtRest at_rest) {
  PGconn* admin = PQconnectdb(std::getenv("WHIZBANG_PG_CONNINFO"));
  const std::string schema = "bench_" + name;
  if (at_rest == AtRest::Vacuumed) {
    const char* values[] = {schema.c_str()};
    PGresult* tables = PQexecParams(admin,
                                    "SELECT string_agg(format('%I.%I', schemaname, tablename), "
                                    "', ') FROM pg_tables WHERE schemaname = $1",
                                    1, nullptr, values, nullptr, nullptr, 0);
    if (PQntuples(tables) == 1 && PQgetisnull(tables, 0, 0) == 0) {
      PQclear(PQexec(admin, ("VACUUM (ANALYZE) " + std::string(PQgetvalue(tables, 0, 0))).c_str()));
    }
    PQclear(tables);
  }
  PQclear(PQexec(admin, "CHECKPOINT"));
  PQfinish(admin);
}

// The SQLite store `name` with its seed's writes settled: the write-ahead log checkpointed into
// the database and the file's pages written out, so the kernel is not writing hundreds of
// megabytes beside the timing.
inline void settle_sqlite_file(const std::string& name) {
  sqlite3* db = nullptr;
  if (sqlite3_open(sqlite_path(name).c_str(), &db) == SQLITE_OK) {
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  }
  sqlite3_close(db);
  ::sync();
}

// Stores kSeedBatch-sized parts of `pending` rows with `seed_part(store, count, service_id)`.
using SeedPart =
    std::function<absl::Status(whizbang::WorkStore&, std::size_t, const whizbang::Uuid&)>;

// The store of (backend, curve, pending), seeded on first use and kept for the repetitions; the
// previous store is closed first (one million-row store at a time). Null after SkipWithError.
inline Seeded* seeded(benchmark::State& state, Backend backend, const std::string& curve,
                      std::size_t pending, const SeedPart& seed_part,
                      const std::function<absl::Status(whizbang::WorkStore&)>& prepare = {},
                      AtRest at_rest = AtRest::Vacuumed) {
  static std::map<std::tuple<Backend, std::string, std::size_t>, Seeded> stores;
  const auto key = std::make_tuple(backend, curve, pending);
  if (auto found = stores.find(key); found != stores.end()) return &found->second;
  stores.clear();
  const std::string name = store_name(backend, curve, pending);
  auto store = open_store(backend, name);
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return nullptr;
  }
  Seeded fresh;
  fresh.store = *std::move(store);
  absl::Status status = prepare ? prepare(*fresh.store) : absl::OkStatus();
  for (std::size_t stored = 0; status.ok() && stored < pending; stored += kSeedBatch) {
    status = seed_part(*fresh.store, std::min(kSeedBatch, pending - stored), fresh.service_id);
  }
  if (!status.ok()) {
    state.SkipWithError(std::string(status.message()).c_str());
    return nullptr;
  }
  if (backend == Backend::Postgres) settle_schema(name, at_rest);
  if (backend == Backend::Sqlite) settle_sqlite_file(name);
  return &stores.emplace(key, std::move(fresh)).first->second;
}

// Every curve: 1k, 100k and 1M rows waiting (or kept), in microseconds of real time.
inline void apply_sizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("pending")
      ->Arg(1000)
      ->Arg(100000)
      ->Arg(1000000)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}

}  // namespace growth
