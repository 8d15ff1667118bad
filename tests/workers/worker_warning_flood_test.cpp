// A worker whose store fails every cycle (a database outage) must not flood the log: it logs the
// first failed cycle, then at most one line per interval saying how many it held back, and one
// line when its cycles succeed again (docs/guide/09-diagnostics.md, EventIds 54 and 144).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <string>

#include "store_test_support.hpp"
#include "support/log_capture.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"

namespace store_test {
namespace {

using namespace std::chrono_literals;

// Runs `sql` on a connection of its own to the store file.
void run_sql_on_file(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 10000);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST(WorkerWarningFloodTests, FailingStore_LogsABoundedNumberOfLinesThenItsRecovery) {
  TempDir dir;
  const std::string path = dir.file("orders.db");
  auto store = whizbang::SqliteWorkStore::open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  // The outage: every claim of the outbox fails ("no such table").
  run_sql_on_file(path, "ALTER TABLE wh_outbox RENAME TO wh_outbox_away");

  whizbang_test::LogCapture log;
  whizbang::OutboxDrainWorkerOptions options;
  options.poll_interval = 1ms;  // a failed cycle every millisecond or so
  options.logger = log.logger;
  whizbang::OutboxDrainWorker worker(**store, resolve, options);
  const auto started = std::chrono::steady_clock::now();
  worker.start();
  constexpr std::uint64_t kFailedCycles = 300;
  ASSERT_TRUE(worker.loop().wait_for_cycles(kFailedCycles, 120s));
  const int failed_lines = log.count("[EventId 54 WorkerCycleFailed] outbox drain cycle failed");
  EXPECT_EQ(log.count("[EventId 144 WorkerCycleRecovered]"), 0);

  run_sql_on_file(path, "ALTER TABLE wh_outbox_away RENAME TO wh_outbox");
  const std::uint64_t after_outage = worker.loop().cycles();
  ASSERT_TRUE(worker.loop().wait_for_cycles(after_outage + 3, 120s));
  worker.stop();
  const auto elapsed = std::chrono::steady_clock::now() - started;

  // The first failure, then at most one line per 10 s of the outage (however slow this run was).
  EXPECT_GE(failed_lines, 1);
  EXPECT_LE(failed_lines, 1 + elapsed / 10s)
      << failed_lines << " lines for " << kFailedCycles << " failed cycles";
  EXPECT_EQ(log.count("[EventId 144 WorkerCycleRecovered] outbox drain cycles succeed again after"),
            1)
      << "no line, or more than one, for the recovery";
  EXPECT_EQ(log.count("WorkerCycleFailed"), log.count("outbox drain cycle failed"));
}

}  // namespace
}  // namespace store_test
