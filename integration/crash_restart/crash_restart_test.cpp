// CrashRestartTests: the two services are killed with SIGKILL at random moments while they move
// orders through outbox -> transport -> inbox -> cascade -> outbox -> inbox -> perspective, and
// restarted on the same SQLite files, until a last incarnation finishes. Then the stores must
// hold every order exactly once: nothing lost, nothing duplicated, nothing left pending.
//
// WHIZBANG_CRASH_ORDERS, WHIZBANG_CRASH_KILLS and WHIZBANG_CRASH_SEED make longer runs.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

int env_or(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}

pid_t spawn_worker(const std::filesystem::path& dir, const char* mode, int number) {
  const std::string dir_arg = dir.string();
  const std::string number_arg = std::to_string(number);
  const pid_t pid = fork();
  if (pid == 0) {
    execl(CRASH_RESTART_WORKER, CRASH_RESTART_WORKER, dir_arg.c_str(), mode, number_arg.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// The worker's exit code, or -signal when a signal ended it.
int wait_for(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// true when the worker ended by itself within `limit` (its exit code in `code`).
bool ended_within(pid_t pid, std::chrono::milliseconds limit, int& code) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Queries over a store file, also while a worker writes it. Opened read-write (never created) so
// that it can rebuild the WAL index a killed worker left behind; it issues no writes.
class StoreFile {
 public:
  explicit StoreFile(const std::filesystem::path& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db_);
    }
    sqlite3_busy_timeout(db_, 5000);  // a worker may be committing
  }
  ~StoreFile() { sqlite3_close(db_); }
  StoreFile(const StoreFile&) = delete;
  StoreFile& operator=(const StoreFile&) = delete;

  std::int64_t scalar(const std::string& sql) const {
    sqlite3_stmt* statement = nullptr;
    std::int64_t value = -1;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      value = sqlite3_column_int64(statement, 0);
    } else {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
    }
    sqlite3_finalize(statement);
    return value;
  }

 private:
  sqlite3* db_ = nullptr;
};

// How far the work got, in steps of 5 per order: sales published OrderPlaced, fulfilment
// stored it, fulfilment published OrderShipped, sales stored it, sales projected it.
std::int64_t steps_done(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / "fulfilment.db")) return 0;
  const StoreFile sales(dir / "sales.db");
  const StoreFile fulfilment(dir / "fulfilment.db");
  return sales.scalar("SELECT count(*) FROM wh_outbox_tombstones") +
         fulfilment.scalar("SELECT count(*) FROM wh_event_store WHERE event_type LIKE '%Placed'") +
         fulfilment.scalar("SELECT count(*) FROM wh_outbox_tombstones") +
         sales.scalar("SELECT count(*) FROM wh_event_store WHERE event_type LIKE '%Shipped'") +
         sales.scalar(
             "SELECT count(*) FROM wh_perspective_models WHERE "
             "json_extract(model_data, '$.shipped') >= 1");
}

TEST(CrashRestartTests, KilledAtRandomMoments_EveryOrderLandsExactlyOnce) {
  const int orders = env_or("WHIZBANG_CRASH_ORDERS", 1500);
  const int max_kills = env_or("WHIZBANG_CRASH_KILLS", 12);
  const int seed = env_or("WHIZBANG_CRASH_SEED", 20261130);
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  std::printf("[ harness  ] WHIZBANG_CRASH_SEED=%d, %d orders, %d kills\n", seed, orders,
              max_kills);
  const std::filesystem::path dir = std::filesystem::path(CRASH_RESTART_DATA_DIR) /
                                    ("run-" + std::to_string(static_cast<long>(getpid())));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  ASSERT_EQ(wait_for(spawn_worker(dir, "submit", orders)), 0);

  // Kill points spread over the whole flow whatever the machine's speed: each incarnation is
  // watched (WAL readers never block the writer) and killed once the stores show its target
  // number of steps done, plus 0-3 ms so the signal lands anywhere between two commits.
  // Target 0 kills during start-up.
  std::vector<std::int64_t> targets(static_cast<std::size_t>(max_kills));
  // The last tenth is left out: an incarnation reaching it usually finishes within the jitter.
  std::uniform_int_distribution<std::int64_t> step(0, 5 * std::int64_t{orders} * 9 / 10);
  for (std::int64_t& target : targets) target = step(random);
  std::sort(targets.begin(), targets.end());
  std::uniform_int_distribution<int> jitter_ms(0, 3);

  int incarnation = 1;
  int kills = 0;
  int finished_code = -1;
  bool finished = false;
  for (const std::int64_t target : targets) {
    const pid_t pid = spawn_worker(dir, "work", incarnation++);
    ASSERT_GT(pid, 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!finished && steps_done(dir) < target) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no progress towards " << target;
      finished = ended_within(pid, std::chrono::milliseconds(1), finished_code);
    }
    if (finished ||
        ended_within(pid, std::chrono::milliseconds(jitter_ms(random)), finished_code)) {
      finished = true;
      break;
    }
    kill(pid, SIGKILL);
    finished_code = wait_for(pid);
    if (finished_code == 0) {  // it finished just before the signal
      finished = true;
      break;
    }
    ASSERT_EQ(finished_code, -SIGKILL);
    ++kills;
    std::printf("[ harness  ] kill %2d at %5lld of %d steps (target %lld)\n", kills,
                static_cast<long long>(steps_done(dir)), 5 * orders,
                static_cast<long long>(target));
  }
  if (!finished) finished_code = wait_for(spawn_worker(dir, "work", incarnation));
  ASSERT_EQ(finished_code, 0) << "the last incarnation did not finish cleanly";
  std::printf("[ harness  ] %d orders, %d incarnations killed\n", orders, kills);
  // Every target short of the end is reached before the work is done.
  EXPECT_GE(kills, max_kills - 1) << "the work finished before the kills landed";

  const StoreFile sales(dir / "sales.db");
  const StoreFile fulfilment(dir / "fulfilment.db");

  // Nothing pending, failed or quarantined anywhere.
  for (const StoreFile* store : {&sales, &fulfilment}) {
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_outbox WHERE processed_at IS NULL"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_inbox WHERE processed_at IS NULL"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_outbox WHERE (status & 32768) <> 0"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_inbox WHERE (status & 32768) <> 0"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_perspective_events"), 0);
  }

  // Each service published each of its events (tombstoned outbox rows), and fulfilment stored
  // every OrderPlaced it received once.
  for (const StoreFile* store : {&sales, &fulfilment}) {
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_outbox_tombstones"), orders);
  }
  EXPECT_EQ(fulfilment.scalar("SELECT count(*) FROM wh_event_store WHERE event_type LIKE "
                              "'%OrderPlaced'"),
            orders);
  EXPECT_EQ(fulfilment.scalar("SELECT count(*) FROM wh_event_store WHERE event_type LIKE "
                              "'%OrderShipped'"),
            orders);

  // Sales stored both events of every order, once each, on the order's stream.
  EXPECT_EQ(sales.scalar("SELECT count(*) FROM wh_event_store WHERE event_type LIKE "
                         "'%OrderPlaced'"),
            orders);
  EXPECT_EQ(sales.scalar("SELECT count(*) FROM wh_event_store WHERE event_type LIKE "
                         "'%OrderShipped'"),
            orders);
  EXPECT_EQ(sales.scalar("SELECT count(*) FROM (SELECT stream_id FROM wh_event_store "
                         "GROUP BY stream_id HAVING count(*) <> 2)"),
            0);

  // The order book: one entry per order, each event applied exactly once.
  EXPECT_EQ(sales.scalar("SELECT count(DISTINCT json_extract(model_data, '$.order_id')) FROM "
                         "wh_perspective_models"),
            orders);
  EXPECT_EQ(sales.scalar("SELECT count(*) FROM wh_perspective_models WHERE "
                         "json_extract(model_data, '$.placed') = 1 AND "
                         "json_extract(model_data, '$.shipped') = 1"),
            orders);
  // Quantities 1..5 cycle over the orders: the shipped total is exact only without repeats.
  std::int64_t expected_quantity = 0;
  for (int i = 0; i < orders; ++i) expected_quantity += 1 + i % 5;
  EXPECT_EQ(sales.scalar("SELECT sum(json_extract(model_data, '$.quantity_shipped')) FROM "
                         "wh_perspective_models"),
            expected_quantity);
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
