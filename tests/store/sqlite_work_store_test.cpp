// SQLite-specific behaviour: the emission-dedup counter (the cascade page's named tests, adapted
// from EF Core to SQLite), migrations, and opening files that are not Whizbang stores.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <fstream>
#include <thread>
#include <vector>

#include "store/sqlite/migrations.hpp"
#include "store_test_support.hpp"
#include "sync_counting_vfs.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace store_test {
namespace {

using namespace whizbang;

class SqliteOutboxEmissionDedupTests : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteWorkStore> open(std::shared_ptr<Metrics> metrics,
                                        std::shared_ptr<spdlog::logger> logger) {
    StoreOptions options;
    options.instance = instance("orders");
    options.metrics = std::move(metrics);
    options.logger = std::move(logger);
    auto store = SqliteWorkStore::open(dir_.file("dedup.db"), options);
    EXPECT_TRUE(store.ok()) << store.status();
    return *std::move(store);
  }
  std::int64_t counted(const InMemoryMetrics& metrics, std::string_view type) {
    return metrics.counter(metric_names::kWorkCoordinatorMeter,
                           metric_names::kOutboxEmissionDeduplicated,
                           {{metric_names::kMessageTypeTag, type}});
  }

  TempDir dir_;
};

TEST_F(SqliteOutboxEmissionDedupTests,
       StoreOutboxMessages_SameMessageStoredTwice_CountsTheSkippedRowByType) {
  auto metrics = std::make_shared<InMemoryMetrics>();
  CapturedLogger log;
  auto store = open(metrics, log.logger);
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(store->store_outbox_messages({&message, 1}).ok());
  EXPECT_EQ(counted(*metrics, "store_test::OrderCreated"), 0);
  auto second = store->store_outbox_messages({&message, 1});
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE((*second)[0].was_newly_created);
  EXPECT_EQ(counted(*metrics, "store_test::OrderCreated"), 1);
  EXPECT_EQ(log.sink->count(110, spdlog::level::debug), 1);
  const std::vector<LogLine> lines = log.sink->lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().text.find(message.message_id.to_string()), std::string::npos);
  EXPECT_NE(lines.back().text.find("store_test::OrderCreated"), std::string::npos);
}

TEST_F(SqliteOutboxEmissionDedupTests,
       StoreOutboxMessages_MixedBatch_CountsOnlyTheRowsThatAlreadyExisted) {
  auto metrics = std::make_shared<InMemoryMetrics>();
  auto store = open(metrics, nullptr);
  const OutboxMessage a = outbox_message(OrderCreated{"a", 1}, "orders");
  const OutboxMessage b = outbox_message(AuditEvent{"b"}, std::nullopt);
  ASSERT_TRUE(store->store_outbox_messages(std::vector<OutboxMessage>{a, b}).ok());
  const OutboxMessage c = outbox_message(OrderCreated{"c", 3}, "orders");
  const OutboxMessage d = outbox_message(ShipOrderCommand{"d"}, "shipping");
  auto rows = store->store_outbox_messages(std::vector<OutboxMessage>{c, a, d, b});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_TRUE((*rows)[0].was_newly_created);
  EXPECT_FALSE((*rows)[1].was_newly_created);
  EXPECT_TRUE((*rows)[2].was_newly_created);
  EXPECT_FALSE((*rows)[3].was_newly_created);
  EXPECT_EQ((*rows)[1].message_id, a.message_id);
  EXPECT_EQ(counted(*metrics, "store_test::OrderCreated"), 1);
  EXPECT_EQ(counted(*metrics, "store_test::AuditEvent"), 1);
  EXPECT_EQ(counted(*metrics, "store_test::ShipOrderCommand"), 0);
  EXPECT_EQ(metrics->counter(metric_names::kWorkCoordinatorMeter,
                             metric_names::kOutboxEmissionDeduplicated),
            2);
}

TEST_F(SqliteOutboxEmissionDedupTests,
       StoreOutboxMessages_WithoutMetricsOrLogger_StillDeduplicatesQuietly) {
  auto store = open(nullptr, nullptr);
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(store->store_outbox_messages({&message, 1}).ok());
  auto second = store->store_outbox_messages({&message, 1});
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE((*second)[0].was_newly_created);
  WorkBatchRequest request;
  auto items = store->process_work_batch(request);
  ASSERT_TRUE(items.ok());
  EXPECT_EQ(items->size(), 1u);
}

TEST_F(SqliteOutboxEmissionDedupTests,
       StoreOutboxMessages_InsideAnOpenTransaction_StoresAndCountsOnTheSameConnection) {
  auto metrics = std::make_shared<InMemoryMetrics>();
  auto store = open(metrics, nullptr);
  const OutboxMessage existing = outbox_message(OrderCreated{"old", 1}, "orders");
  ASSERT_TRUE(store->store_outbox_messages({&existing, 1}).ok());
  const OutboxMessage fresh = outbox_message(OrderCreated{"new", 2}, "orders");
  Transaction tx(*store);
  ASSERT_TRUE(tx.status().ok());
  auto rows = store->store_outbox_messages(std::vector<OutboxMessage>{fresh, existing, fresh});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_TRUE((*rows)[0].was_newly_created);
  EXPECT_FALSE((*rows)[1].was_newly_created);
  EXPECT_FALSE((*rows)[2].was_newly_created) << "the row stored earlier in this transaction";
  EXPECT_EQ(counted(*metrics, "store_test::OrderCreated"), 2);
  EXPECT_TRUE(store->find_outbox_row(fresh.message_id)->has_value()) << "same connection";
  ASSERT_TRUE(tx.commit().ok());
  EXPECT_TRUE(store->find_outbox_row(fresh.message_id)->has_value());
}

TEST(WorkCoordinatorMetricsTests, WCMetrics_OutboxEmissionDeduplicated_CountsPerMessageType) {
  TempDir dir;
  auto metrics = std::make_shared<InMemoryMetrics>();
  StoreOptions options;
  options.metrics = metrics;
  auto store = SqliteWorkStore::open(dir.file("metrics.db"), options);
  ASSERT_TRUE(store.ok());
  const OutboxMessage created = outbox_message(OrderCreated{"o", 1}, "orders");
  const OutboxMessage audit = outbox_message(AuditEvent{"a"}, std::nullopt);
  const std::vector<OutboxMessage> rows{created, audit};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*store)->store_outbox_messages(rows).ok());
  // Also through process_work_batch's storage phase.
  WorkBatchRequest request;
  request.new_outbox = {created};
  ASSERT_TRUE((*store)->process_work_batch(request).ok());
  const auto series = metrics->series(metric_names::kWorkCoordinatorMeter,
                                      metric_names::kOutboxEmissionDeduplicated);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series.at("message_type=store_test::OrderCreated"), 3);
  EXPECT_EQ(series.at("message_type=store_test::AuditEvent"), 2);
}

// ---- opening and migrations ------------------------------------------------------------------

std::string migration_sql(int version) {
  for (const sqlite::Migration& migration : sqlite::migrations()) {
    if (migration.version == version) return std::string(migration.sql);
  }
  return {};
}

TEST(SqliteWorkStoreMigrationTests, FreshFile_EndsAtTheLatestVersionInWalMode) {
  TempDir dir;
  auto store = SqliteWorkStore::open(dir.file("fresh.db"));
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->schema_version(), SqliteWorkStore::latest_schema_version());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.file("fresh.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST(SqliteWorkStoreMigrationTests, VersionOneFile_IsMigratedToCurrentAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  // A store written by a runtime that knew only migration 1: its inbox has no source_service_id.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const std::string v1 =
        "CREATE TABLE wh_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at INTEGER NOT NULL);" +
        migration_sql(1) +
        "INSERT INTO wh_schema_version VALUES (1, 'core tables', 0);"
        "INSERT INTO wh_inbox (message_id, handler_name, message_type, event_data, received_at) "
        "VALUES (x'0190f3c4aaaa7bbb8ccc000000000001', 'OrderCreatedHandler', "
        "'store_test::OrderCreated', '{}', 1);";
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db, v1.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_close(db);
  }
  auto store = SqliteWorkStore::open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->schema_version(), SqliteWorkStore::latest_schema_version());
  auto id = MessageId::parse("0190f3c4-aaaa-7bbb-8ccc-000000000001");
  ASSERT_TRUE(id.ok());
  auto row = (*store)->find_inbox_row(*id);
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(row->has_value());
  EXPECT_EQ((*row)->message.handler_name, "OrderCreatedHandler");
  EXPECT_TRUE((*row)->message.source_service_id.is_nil());
  // Migration 3's tables work.
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE((*store)->store_outbox_messages({&message, 1}).ok());
  const ReceptorInvocationRecord record{"r", Stage::PostInboxInline, {}, {}, "orders", ""};
  EXPECT_TRUE((*store)->record_receptor_invocations(*id, {&record, 1}).ok());
  // Reopening a current file applies nothing and keeps everything.
  store->reset();
  auto again = SqliteWorkStore::open(path);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE((*again)->find_outbox_row(message.message_id)->has_value());
}

// Perspective events a version 6 runtime left pending come through migration 7 with their
// event's version: claimed in the order their events were appended, not of their ids.
TEST(SqliteWorkStoreMigrationTests, VersionSixFile_PendingPerspectiveEventsKeepTheirStreamsOrder) {
  TempDir dir;
  const std::string path = dir.file("v6.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string v6 =
        "CREATE TABLE wh_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at INTEGER NOT NULL);";
    for (int version = 1; version <= 6; ++version) {
      v6 += migration_sql(version) + "INSERT INTO wh_schema_version VALUES (" +
            std::to_string(version) + ", 'v', 0);";
    }
    // Version 1 of the stream has the larger id.
    for (const char* event :
         {"(x'0190f3c4aaaa7bbb8ccc000000000002', 1)", "(x'0190f3c4aaaa7bbb8ccc000000000001', 2)"}) {
      v6 += std::string(
                "INSERT INTO wh_event_store (event_id, version, stream_id, aggregate_id, "
                "aggregate_type, event_type, event_data, metadata, created_at) "
                "SELECT column1, column2, x'0190f3c4aaaa7bbb8ccc0000000000ff', "
                "x'0190f3c4aaaa7bbb8ccc0000000000ff', 't', 't', '{}', '{}', 1 "
                "FROM (VALUES ") +
            event +
            ");"
            "INSERT INTO wh_perspective_events (event_work_id, stream_id, perspective_name, "
            "event_id, created_at) SELECT randomblob(16), x'0190f3c4aaaa7bbb8ccc0000000000ff', "
            "'P', column1, 1 FROM (VALUES " +
            event + ");";
    }
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db, v6.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_close(db);
  }
  auto store = SqliteWorkStore::open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto work = (*store)->claim_perspective_work(10);
  ASSERT_TRUE(work.ok()) << work.status();
  ASSERT_EQ(work->size(), 2u);
  EXPECT_EQ((*work)[0].event_id.to_string(), "0190f3c4-aaaa-7bbb-8ccc-000000000002");
  EXPECT_EQ((*work)[0].version, 1);
  EXPECT_EQ((*work)[1].event_id.to_string(), "0190f3c4-aaaa-7bbb-8ccc-000000000001");
}

TEST(SqliteWorkStoreOpenTests, FileThatIsNotSqlite_IsRefusedWithDataLoss) {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  std::ofstream(path) << "these are not the tables you are looking for, not even close. "
                         "padding padding padding padding padding padding padding padding";
  auto store = SqliteWorkStore::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(store.status().message().find("not an SQLite database"), std::string::npos)
      << store.status();
}

TEST(SqliteWorkStoreOpenTests, SqliteFileThatIsNotAWhizbangStore_IsRefused) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE customers (id INTEGER)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = SqliteWorkStore::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("not a Whizbang store"), std::string::npos)
      << store.status();
}

TEST(SqliteWorkStoreOpenTests, TwoStoresOnOneFile_ShareRowsAndLeases) {
  TempDir dir;
  ManualClock clock;
  StoreOptions a;
  a.instance = instance("orders");
  a.now = clock.fn();
  StoreOptions b = a;
  b.instance = instance("orders");
  auto first = SqliteWorkStore::open(dir.file("shared.db"), a);
  auto second = SqliteWorkStore::open(dir.file("shared.db"), b);
  ASSERT_TRUE(first.ok() && second.ok());
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE((*first)->store_outbox_messages({&message, 1}).ok());
  auto taken = (*second)->process_work_batch({});
  ASSERT_TRUE(taken.ok());
  EXPECT_TRUE(taken->empty()) << "leased to the storing instance";
  clock.advance(a.lease_duration + std::chrono::seconds(1));
  taken = (*second)->process_work_batch({});
  ASSERT_TRUE(taken.ok());
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_TRUE((*taken)[0].is_orphaned);
}

// Several processes of one service on one file: each store object is an instance of its own.
class SqliteTwoInstancesTests : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions a;
    a.instance = instance("orders");
    a.now = clock_.fn();
    StoreOptions b = a;
    b.instance = instance("orders");
    auto first = SqliteWorkStore::open(dir_.file("shared.db"), a);
    auto second = SqliteWorkStore::open(dir_.file("shared.db"), b);
    ASSERT_TRUE(first.ok() && second.ok());
    first_ = *std::move(first);
    second_ = *std::move(second);
  }

  TempDir dir_;
  ManualClock clock_;
  std::unique_ptr<SqliteWorkStore> first_;
  std::unique_ptr<SqliteWorkStore> second_;
};

TEST_F(SqliteTwoInstancesTests, CompletionOfARowTheOtherTookOver_IsIgnored) {
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(first_->store_outbox_messages({&message, 1}).ok());
  ASSERT_EQ(first_->process_work_batch({})->size(), 1u);
  clock_.advance(std::chrono::seconds(301));  // the first instance's lease lapses mid-batch
  ASSERT_EQ(second_->process_work_batch({})->size(), 1u);
  const WorkLease lease{WorkSource::Outbox, message.message_id};
  EXPECT_TRUE(first_->renew_leases({&lease, 1})->empty()) << "the lease is the second's now";
  const WorkCompletion published{WorkSource::Outbox, message.message_id, MessageStatus::Published};
  ASSERT_TRUE(first_->complete_work({&published, 1}, {}).ok());
  auto row = second_->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value()) << "the late completion did not delete it";
  ASSERT_TRUE(second_->complete_work({&published, 1}, {}).ok());
  row = second_->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(row->has_value());
}

TEST_F(SqliteTwoInstancesTests, LaterRowOfAStream_WaitsWhileTheOtherInstanceHoldsTheEarlierOne) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage first = outbox_message(OrderCreated{"o", 1}, "orders", stream);
  const OutboxMessage second = outbox_message(OrderCreated{"o", 2}, "orders", stream);
  ASSERT_TRUE(first_->store_outbox_messages({&first, 1}).ok());    // leased to the first
  ASSERT_TRUE(second_->store_outbox_messages({&second, 1}).ok());  // leased to the second
  auto taken = second_->process_work_batch({});
  ASSERT_TRUE(taken.ok());
  EXPECT_TRUE(taken->empty()) << "the first row of the stream is leased to the other instance";
  const WorkCompletion release{WorkSource::Outbox, first.message_id, MessageStatus::None};
  ASSERT_TRUE(first_->complete_work({&release, 1}, {}).ok());
  taken = second_->process_work_batch({});
  ASSERT_TRUE(taken.ok());
  ASSERT_EQ(taken->size(), 2u);
  EXPECT_EQ((*taken)[0].message_id, first.message_id);
  EXPECT_EQ((*taken)[1].message_id, second.message_id);
}

// Openers of one new file meet in the switch to WAL: each holds a read lock when one upgrades to
// the write lock, and SQLite answers the others "database is locked" at once, without its busy
// handler. Opening retries; several rounds of many openers, because the meeting is timing.
TEST(SqliteWorkStoreOpenTests, ConcurrentFirstOpensOfOneFile_MigrateItOnce) {
  TempDir dir;
  constexpr int kRounds = 10;
  constexpr int kOpeners = 16;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.file("fresh-" + std::to_string(round) + ".db");
    std::vector<absl::Status> results(kOpeners);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kOpeners; ++i) {
      threads.emplace_back([&, i] {
        ++ready;
        while (ready.load() < kOpeners) std::this_thread::yield();  // start together
        auto store = SqliteWorkStore::open(path);
        results[i] = store.status();
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (const absl::Status& status : results) {
      ASSERT_TRUE(status.ok()) << "round " << round << ": " << status;
    }
    auto store = SqliteWorkStore::open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_EQ((*store)->schema_version(), SqliteWorkStore::latest_schema_version());
    auto settings = (*store)->connection_settings();
    ASSERT_TRUE(settings.ok()) << settings.status();
    EXPECT_EQ(settings->journal_mode, "wal");
  }
}

TEST(SqliteWorkStoreOpenTests, Durability_IsFullByDefaultAndNormalOnRequest) {
  TempDir dir;
  auto full = SqliteWorkStore::open(dir.file("full.db"));
  ASSERT_TRUE(full.ok()) << full.status();
  auto settings = (*full)->connection_settings();
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->journal_mode, "wal");
  EXPECT_EQ(settings->synchronous, "full");
  StoreOptions options;
  options.durability = Durability::Normal;
  auto normal = SqliteWorkStore::open(dir.file("normal.db"), options);
  ASSERT_TRUE(normal.ok()) << normal.status();
  settings = (*normal)->connection_settings();
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->synchronous, "normal");
}

// A FULL store whose syncs are counted, holding one outbox row whose storing lease has lapsed.
class SqliteDurabilityTests : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.instance = instance("orders");
    options_.now = clock_.fn();
    auto store = SqliteWorkStore::open(dir_.file("sync.db"), options_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    const int before = vfs_.syncs();
    ASSERT_TRUE(store_->store_outbox_messages({&message_, 1}).ok());
    EXPECT_GT(vfs_.syncs(), before) << "a stored row is on disk when the call returns";
    clock_.advance(options_.lease_duration + std::chrono::seconds(1));
  }

  SyncCountingVfs vfs_;
  TempDir dir_;
  ManualClock clock_;
  StoreOptions options_;
  std::unique_ptr<SqliteWorkStore> store_;
  const OutboxMessage message_ = outbox_message(OrderCreated{"o", 1}, "orders");
};

// At FULL, what a caller is promised durable is synced before the call returns; a cycle that
// only claims is not: lost to a power loss, it is a lease that lapsed.
TEST_F(SqliteDurabilityTests, AtFull_StoredRowsAndCompletionsAreSynced_AClaimAloneIsNot) {
  int before = vfs_.syncs();
  auto claimed = store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ(vfs_.syncs(), before) << "a claim alone waits for no sync";
  auto settings = store_->connection_settings();
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->synchronous, "full") << "the next transaction is synced again";

  WorkBatchRequest completing;
  completing.completions.push_back(
      {WorkSource::Outbox, message_.message_id, MessageStatus::Published});
  before = vfs_.syncs();
  ASSERT_TRUE(store_->process_work_batch(completing).ok());
  EXPECT_GT(vfs_.syncs(), before) << "a completion is on disk when the call returns";
}

TEST_F(SqliteDurabilityTests, ClaimInsideTheCallersTransaction_IsSyncedWithIt) {
  ASSERT_TRUE(store_->begin().ok());
  auto claimed = store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  const int before = vfs_.syncs();
  ASSERT_TRUE(store_->commit().ok());
  EXPECT_GT(vfs_.syncs(), before);
}

// An outbox row is stored leased to its writer. A claim just after (within a hundredth of the
// lease, at most a second) keeps that lease rather than rewriting the row (envelope and all) for
// a lease a moment longer; an older lease is renewed as the claim's own.
class SqliteClaimLeaseTests : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.instance = instance("orders");
    options_.now = clock_.fn();
    auto store = SqliteWorkStore::open(dir_.file("lease.db"), options_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }
  TimePoint stored_lease(const MessageId& id) {
    auto row = store_->find_outbox_row(id);
    EXPECT_TRUE(row.ok() && row->has_value());
    return row.ok() && row->has_value() ? (*row)->state.lease_expiry.value_or(TimePoint{})
                                        : TimePoint{};
  }

  TempDir dir_;
  ManualClock clock_;
  StoreOptions options_;
  std::unique_ptr<SqliteWorkStore> store_;
};

TEST_F(SqliteClaimLeaseTests, ClaimOfARowLeasedHereJustNow_KeepsThatLease) {
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  const TimePoint stored_at = clock_.now();
  ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  clock_.advance(std::chrono::milliseconds(500));
  auto claimed = store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].lease_expiry, stored_at + options_.lease_duration);
  EXPECT_EQ(stored_lease(message.message_id), stored_at + options_.lease_duration);
}

TEST_F(SqliteClaimLeaseTests, ClaimOfARowLeasedHereEarlier_RenewsTheLease) {
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  clock_.advance(std::chrono::seconds(2));
  const TimePoint claimed_at = clock_.now();
  auto claimed = store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].lease_expiry, claimed_at + options_.lease_duration);
  EXPECT_EQ(stored_lease(message.message_id), claimed_at + options_.lease_duration);
}

// The event the claim appends is the row's "stored" mark: the row reads EventStored, while its
// own bytes (status column included) are left as stored.
TEST_F(SqliteClaimLeaseTests, ClaimThatStoresTheRowsEvent_MarksItWithoutRewritingTheRow) {
  const OutboxMessage message =
      outbox_message(OrderCreated{"o", 1}, "orders", MessageId::mint().uuid());
  ASSERT_TRUE(message.is_event);
  const TimePoint stored_at = clock_.now();
  ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  auto claimed = store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_TRUE(has_status((*claimed)[0].status, MessageStatus::EventStored));
  auto row = store_->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_TRUE(has_status((*row)->state.status, MessageStatus::EventStored));
  EXPECT_EQ(stored_lease(message.message_id), stored_at + options_.lease_duration);

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.file("lease.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT status FROM wh_outbox", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(stmt, 0), static_cast<std::int64_t>(MessageStatus::Stored))
      << "the claim rewrote the row";
  sqlite3_finalize(stmt);
  sqlite3_close(db);

  // Claimed again once the lease lapsed: the event is not appended twice.
  clock_.advance(options_.lease_duration + std::chrono::seconds(1));
  auto again = store_->process_work_batch({});
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size(), 1u);
  EXPECT_TRUE(has_status((*again)[0].status, MessageStatus::EventStored));
  auto events = store_->read_stream(*message.stream_id);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_EQ(events->size(), 1u);
}

// Inbox rows stored inside the caller's transaction (the inbox worker's group for a delivered
// batch) are leased here, and the group's claim in that transaction keeps the lease: nothing
// rewrites the rows between their insert and their handling. Stored on their own, they are left
// unleased for any instance's worker.
TEST_F(SqliteClaimLeaseTests, InboxRowsStoredInsideATransaction_AreLeasedHere_TheClaimKeepsIt) {
  const InboxMessage message =
      inbox_message(outbox_message(OrderCreated{"o", 1}, "orders", MessageId::mint().uuid()));
  const TimePoint stored_at = clock_.now();
  ASSERT_TRUE(store_->begin().ok());
  ASSERT_TRUE(store_->store_inbox_messages({&message, 1}, MessageId::mint().uuid()).ok());
  clock_.advance(std::chrono::milliseconds(500));  // a claim of its own would lease it later
  WorkBatchRequest request;
  request.claim_outbox = false;
  auto claimed = store_->process_work_batch(request);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].lease_expiry, stored_at + options_.lease_duration);
  ASSERT_TRUE(store_->commit().ok());
  auto row = store_->find_inbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state.instance_id, options_.instance.instance_id);
  EXPECT_EQ((*row)->state.lease_expiry, stored_at + options_.lease_duration);
  EXPECT_TRUE(has_status((*row)->state.status, MessageStatus::EventStored));
}

TEST_F(SqliteClaimLeaseTests, InboxRowsStoredOnTheirOwn_AreNotLeased) {
  const InboxMessage message = inbox_message(outbox_message(OrderCreated{"o", 1}, "orders"));
  ASSERT_TRUE(store_->store_inbox_messages({&message, 1}, MessageId::mint().uuid()).ok());
  auto row = store_->find_inbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_FALSE((*row)->state.instance_id.has_value());
  EXPECT_FALSE((*row)->state.lease_expiry.has_value());
}

// An event row whose event is not (yet) in the store does not read as stored.
TEST_F(SqliteClaimLeaseTests, EventRowNotYetClaimed_DoesNotReadAsStored) {
  const OutboxMessage message =
      outbox_message(OrderCreated{"o", 1}, "orders", MessageId::mint().uuid());
  ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  auto row = store_->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_FALSE(has_status((*row)->state.status, MessageStatus::EventStored));
}

TEST_F(SqliteClaimLeaseTests, RenewalOfALeaseTakenJustNow_KeepsIt) {
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  const TimePoint stored_at = clock_.now();
  ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  clock_.advance(std::chrono::milliseconds(500));
  const WorkLease lease{WorkSource::Outbox, message.message_id};
  auto renewed = store_->renew_leases({&lease, 1});
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  ASSERT_EQ(renewed->size(), 1u) << "still this instance's";
  EXPECT_EQ(stored_lease(message.message_id), stored_at + options_.lease_duration);
}

TEST_F(SqliteClaimLeaseTests, RenewalOfAnOlderLease_ExtendsIt) {
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  clock_.advance(std::chrono::seconds(2));
  const TimePoint renewed_at = clock_.now();
  const WorkLease lease{WorkSource::Outbox, message.message_id};
  auto renewed = store_->renew_leases({&lease, 1});
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  ASSERT_EQ(renewed->size(), 1u);
  EXPECT_EQ(stored_lease(message.message_id), renewed_at + options_.lease_duration);
}

TEST_F(SqliteClaimLeaseTests, RenewalOfALapsedLeaseAnotherInstanceTook_IsRefused) {
  StoreOptions other = options_;
  other.instance = instance("orders");
  auto second = SqliteWorkStore::open(dir_.file("lease.db"), other);
  ASSERT_TRUE(second.ok()) << second.status();
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  clock_.advance(options_.lease_duration + std::chrono::seconds(1));
  ASSERT_EQ((*second)->process_work_batch({})->size(), 1u);  // taken over, freshly leased
  const WorkLease lease{WorkSource::Outbox, message.message_id};
  auto renewed = store_->renew_leases({&lease, 1});
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_TRUE(renewed->empty()) << "a fresh lease, but the other instance's";
}

// With a short lease (the sample's is 2 s) "just now" is a hundredth of it: a lease a claim or a
// renewal keeps always has at least 99% of its time left, so it is never one that lapsed.
TEST_F(SqliteClaimLeaseTests, ShortLease_IsRenewedOnceAHundredthOfItHasPassed) {
  StoreOptions short_lease = options_;
  short_lease.lease_duration = std::chrono::seconds(1);
  auto store = SqliteWorkStore::open(dir_.file("short.db"), short_lease);
  ASSERT_TRUE(store.ok()) << store.status();
  const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
  const TimePoint stored_at = clock_.now();
  ASSERT_TRUE((*store)->store_outbox_messages({&message, 1}).ok());
  const WorkLease lease{WorkSource::Outbox, message.message_id};
  clock_.advance(std::chrono::milliseconds(5));
  ASSERT_EQ((*store)->renew_leases({&lease, 1})->size(), 1u);
  auto row = (*store)->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state.lease_expiry, stored_at + short_lease.lease_duration) << "kept";
  clock_.advance(std::chrono::milliseconds(900));  // the stored lease has 95 ms left
  const TimePoint renewed_at = clock_.now();
  ASSERT_EQ((*store)->renew_leases({&lease, 1})->size(), 1u);
  row = (*store)->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state.lease_expiry, renewed_at + short_lease.lease_duration) << "extended";
}

}  // namespace
}  // namespace store_test
