// What both crash harnesses share: starting and killing worker processes, reading the stores
// while workers write them, the progress the stores show, and the checks of the end state (every
// order's rows and every receptor's side effect exactly once).
#pragma once

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace crash_harness {

inline int env_or(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

// WHIZBANG_CRASH_SEED, or one from the clock: every run explores other kill moments, and prints
// its seed so that a failure can be replayed.
inline int seed_from_env_or_clock() {
  return env_or("WHIZBANG_CRASH_SEED", static_cast<int>(std::time(nullptr) % 1'000'000'007));
}

// Starts CRASH_RESTART_WORKER with `args`, its side effects journaled to `journal`.
inline pid_t spawn_worker(const std::vector<std::string>& args,
                          const std::filesystem::path& journal) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("WHIZBANG_CRASH_JOURNAL", journal.c_str(), 1);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(CRASH_RESTART_WORKER));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(CRASH_RESTART_WORKER, argv.data());
    _exit(127);
  }
  return pid;
}

// The worker's exit code, or -signal when a signal ended it.
inline int wait_for(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// Kills and reaps the worker `pid` names (when not 0) on leaving the scope: a failed assertion
// returns early, and no worker may outlive the test.
class ReapOnExit {
 public:
  explicit ReapOnExit(const pid_t& pid) : pid_(pid) {}
  ~ReapOnExit() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  ReapOnExit(const ReapOnExit&) = delete;
  ReapOnExit& operator=(const ReapOnExit&) = delete;

 private:
  const pid_t& pid_;
};

// true when the worker ended by itself within `limit` (its exit code in `code`).
inline bool ended_within(pid_t pid, std::chrono::milliseconds limit, int& code) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  do {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // polling a process, not a sync
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

// Queries over a store file, also while workers write it. Opened read-write (never created) so
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
inline std::int64_t steps_done(const std::filesystem::path& dir) {
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

// Rows still owed anywhere: unfinished outbox, inbox, perspective, lifecycle and detached work.
inline std::int64_t rows_owed(const std::filesystem::path& dir) {
  std::int64_t owed = 0;
  for (const char* name : {"sales.db", "fulfilment.db"}) {
    if (!std::filesystem::exists(dir / name)) continue;
    const StoreFile store(dir / name);
    owed += store.scalar("SELECT count(*) FROM wh_outbox WHERE processed_at IS NULL") +
            store.scalar("SELECT count(*) FROM wh_inbox WHERE processed_at IS NULL") +
            store.scalar("SELECT count(*) FROM wh_perspective_events") +
            store.scalar("SELECT count(*) FROM wh_lifecycle_completions") +
            store.scalar("SELECT count(*) FROM wh_detached_work");
  }
  return owed;
}

// Deliveries each store has yet to receive when every order brings it `per_order` messages:
// every message that ever reached a store's inbox keeps its id in wh_message_deduplication. Rows
// owed cannot tell this: a message still in flight on a broker is in no store.
inline std::int64_t deliveries_owed(const std::filesystem::path& dir, int orders, int per_order) {
  std::int64_t owed = 0;
  for (const char* name : {"sales.db", "fulfilment.db"}) {
    const std::int64_t expected = std::int64_t{orders} * per_order;
    if (!std::filesystem::exists(dir / name)) {
      owed += expected;
      continue;
    }
    const StoreFile store(dir / name);
    owed += std::max<std::int64_t>(
        0, expected - store.scalar("SELECT count(*) FROM wh_message_deduplication"));
  }
  return owed;
}

// Every order's rows exactly once in both stores, nothing pending, failed or dead-lettered.
inline void expect_every_order_stored_once(const std::filesystem::path& dir, int orders) {
  const StoreFile sales(dir / "sales.db");
  const StoreFile fulfilment(dir / "fulfilment.db");
  for (const StoreFile* store : {&sales, &fulfilment}) {
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_outbox WHERE processed_at IS NULL"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_inbox WHERE processed_at IS NULL"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_outbox WHERE (status & 32768) <> 0"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_inbox WHERE (status & 32768) <> 0"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_perspective_events"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_lifecycle_completions"), 0);
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_detached_work"), 0);
    // Each service published each of its events once (tombstoned outbox rows).
    EXPECT_EQ(store->scalar("SELECT count(*) FROM wh_outbox_tombstones"), orders);
  }
  for (const StoreFile* store : {&sales, &fulfilment}) {
    for (const char* type : {"OrderPlaced", "OrderShipped"}) {
      EXPECT_EQ(store->scalar(std::string("SELECT count(*) FROM wh_event_store WHERE event_type "
                                          "LIKE '%") +
                              type + "'"),
                orders)
          << type;
    }
  }
  // Sales stored both events of every order, on the order's stream.
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
}

// The receptors' side effects (outside every store) as the journal has them: every effect of
// every order at least once, and at most once from processes that were never killed. An effect
// repeats only where a process died between causing it and committing its handling; any other
// repeat is a receptor fired twice.
inline void expect_every_effect_once(const std::filesystem::path& journal,
                                     const std::set<pid_t>& killed, int orders) {
  // effect -> order -> pids
  std::map<std::string, std::map<std::string, std::vector<pid_t>>> effects;
  std::ifstream in(journal);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string effect;
    std::string order;
    pid_t pid = 0;
    if (fields >> effect >> order >> pid) effects[effect][order].push_back(pid);
  }
  int repeated_by_killed = 0;
  for (const char* effect : {"order-shipped", "label-printed", "order-book-placed",
                             "order-book-shipped", "shipment-announced"}) {
    for (int i = 0; i < orders; ++i) {
      char order[32];
      std::snprintf(order, sizeof order, "order-%04d", i);
      const std::vector<pid_t>& pids = effects[effect][order];
      int from_survivors = 0;
      for (const pid_t pid : pids) from_survivors += killed.contains(pid) ? 0 : 1;
      EXPECT_GE(pids.size(), 1u) << effect << " never happened for " << order;
      EXPECT_LE(from_survivors, 1) << effect << " happened " << from_survivors << " times for "
                                   << order << " in processes never killed";
      repeated_by_killed += static_cast<int>(pids.size()) - 1 > 0 && from_survivors <= 1
                                ? static_cast<int>(pids.size()) - 1
                                : 0;
    }
  }
  std::printf("[ harness  ] side effects: 5 x %d, %d repeated by processes killed mid-handling\n",
              orders, repeated_by_killed);
}

}  // namespace crash_harness
