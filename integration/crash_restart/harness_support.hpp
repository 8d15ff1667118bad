// What the crash harnesses share: starting and killing worker processes, the progress their
// stores show (read through harness_stores.hpp) and the checks of the end state (every order's
// rows and every receptor's side effect exactly once).
#pragma once

#include <signal.h>
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
#include <string_view>
#include <thread>
#include <vector>

#include "chaos_network.hpp"
#include "harness_stores.hpp"

#include "crash_restart/journal.hpp"
#include "crash_restart/opening_balances.hpp"

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

// Starts CRASH_RESTART_WORKER with `args`, its side effects journaled to `journal`, its stores
// where `store_locations` says (Stores::worker_locations; empty: the data directory's files), in
// the network namespace `network` (empty: this process's).
inline pid_t spawn_worker(const std::vector<std::string>& args,
                          const std::filesystem::path& journal,
                          const std::string& store_locations = {},
                          const std::string& network = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!network.empty() && !enter_network_namespace(network)) _exit(126);
    setenv("WHIZBANG_CRASH_JOURNAL", journal.c_str(), 1);
    if (!store_locations.empty()) setenv("WHIZBANG_CRASH_STORES", store_locations.c_str(), 1);
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

// How far the work got, in steps of 5 per order: sales published OrderPlaced, fulfilment
// stored it, fulfilment published OrderShipped, sales stored it, sales projected it. Each
// step's count, in that order.
inline std::vector<std::int64_t> steps_by_kind(const Stores& stores) {
  if (!stores.created()) return {0, 0, 0, 0, 0};
  return {stores.scalar("sales", stores.published_ids()),
          stores.scalar("fulfilment",
                        "SELECT count(*) FROM wh_event_store WHERE event_type LIKE '%Placed'"),
          stores.scalar("fulfilment", stores.published_ids()),
          stores.scalar("sales",
                        "SELECT count(*) FROM wh_event_store WHERE event_type LIKE '%Shipped'"),
          stores.scalar("sales", "SELECT count(*) FROM wh_perspective_models WHERE " +
                                     stores.model_integer("shipped") + " >= 1")};
}
inline std::int64_t steps_done(const Stores& stores) {
  std::int64_t done = 0;
  for (const std::int64_t count : steps_by_kind(stores)) done += count;
  return done;
}
// The counts for a failure message: "placed published 60, placed stored 60, …".
inline std::string describe_steps(const Stores& stores) {
  static const char* const kSteps[] = {"OrderPlaced published", "OrderPlaced stored",
                                       "OrderShipped published", "OrderShipped stored",
                                       "order book shipped"};
  const std::vector<std::int64_t> counts = steps_by_kind(stores);
  std::string text;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::string(kSteps[i]) + " " + std::to_string(counts[i]);
  }
  return text;
}

// Rows still owed anywhere: unfinished outbox, inbox, perspective, lifecycle and detached work.
inline std::int64_t rows_owed(const Stores& stores) {
  if (!stores.created()) return 0;
  std::int64_t owed = 0;
  for (const char* service : {"sales", "fulfilment"}) {
    for (const char* sql : {"SELECT count(*) FROM wh_outbox WHERE processed_at IS NULL",
                            "SELECT count(*) FROM wh_inbox WHERE processed_at IS NULL",
                            "SELECT count(*) FROM wh_perspective_events",
                            "SELECT count(*) FROM wh_lifecycle_completions",
                            "SELECT count(*) FROM wh_detached_work"}) {
      owed += stores.scalar(service, sql);
    }
  }
  return owed;
}

// Deliveries each store has yet to receive when every order brings it `per_order` messages:
// every message that ever reached a store's inbox keeps its id in wh_message_deduplication. Rows
// owed cannot tell this: a message still in flight on a broker is in no store.
inline std::int64_t deliveries_owed(const Stores& stores, int orders, int per_order) {
  const std::int64_t expected = std::int64_t{orders} * per_order;
  if (!stores.created()) return 2 * expected;
  std::int64_t owed = 0;
  for (const char* service : {"sales", "fulfilment"}) {
    owed += std::max<std::int64_t>(
        0, expected - stores.scalar(service, "SELECT count(*) FROM wh_message_deduplication"));
  }
  return owed;
}

// Every order's rows exactly once in both stores, nothing pending, failed or dead-lettered.
inline void expect_every_order_stored_once(const Stores& stores, int orders) {
  for (const char* service : {"sales", "fulfilment"}) {
    for (const char* sql : {"SELECT count(*) FROM wh_outbox WHERE processed_at IS NULL",
                            "SELECT count(*) FROM wh_inbox WHERE processed_at IS NULL",
                            "SELECT count(*) FROM wh_outbox WHERE (status & 32768) <> 0",
                            "SELECT count(*) FROM wh_inbox WHERE (status & 32768) <> 0",
                            "SELECT count(*) FROM wh_perspective_events",
                            "SELECT count(*) FROM wh_lifecycle_completions",
                            "SELECT count(*) FROM wh_detached_work"}) {
      EXPECT_EQ(stores.scalar(service, sql), 0) << service << ": " << sql;
    }
    // Each service published each of its events once.
    EXPECT_EQ(stores.scalar(service, stores.published_ids()), orders) << service;
    for (const char* type : {"OrderPlaced", "OrderShipped"}) {
      EXPECT_EQ(stores.scalar(service, std::string("SELECT count(*) FROM wh_event_store WHERE "
                                                   "event_type LIKE '%") +
                                           type + "'"),
                orders)
          << service << ": " << type;
    }
  }
  // Sales stored both events of every order, on the order's stream.
  EXPECT_EQ(stores.scalar("sales",
                          "SELECT count(*) FROM (SELECT stream_id FROM wh_event_store "
                          "GROUP BY stream_id HAVING count(*) <> 2) AS streams"),
            0);
  // The order book: one entry per order, each event applied exactly once.
  EXPECT_EQ(stores.scalar("sales", "SELECT count(DISTINCT " + stores.model_text("order_id") +
                                       ") FROM wh_perspective_models"),
            orders);
  EXPECT_EQ(stores.scalar("sales", "SELECT count(*) FROM wh_perspective_models WHERE " +
                                       stores.model_integer("placed") + " = 1 AND " +
                                       stores.model_integer("shipped") + " = 1"),
            orders);
  // In the order sales stored them: OrderPlaced before OrderShipped, on every order's stream.
  EXPECT_EQ(stores.scalar("sales", "SELECT count(*) FROM wh_perspective_models WHERE " +
                                       stores.model_integer("shipped_before_placed") + " <> 0"),
            0);
  // Quantities 1..5 cycle over the orders: the shipped total is exact only without repeats.
  std::int64_t expected_quantity = 0;
  for (int i = 0; i < orders; ++i) expected_quantity += 1 + i % 5;
  EXPECT_EQ(stores.scalar("sales", "SELECT sum(" + stores.model_integer("quantity_shipped") +
                                       ") FROM wh_perspective_models"),
            expected_quantity);
  // The services' own tables, written by their receptors through SqlSession in the handlings'
  // transactions (crash_restart/own_tables.hpp): exact, whatever was killed when.
  EXPECT_EQ(stores.scalar("sales", "SELECT count(*) FROM orders"), orders);
  EXPECT_EQ(stores.scalar("sales", "SELECT balance FROM accounts WHERE id = 'customer'"),
            crash_restart::kOpeningBalance - expected_quantity)
      << "the customer debited once per order";
  EXPECT_EQ(stores.scalar("sales", "SELECT points FROM loyalty WHERE id = 'customer'"),
            expected_quantity)
      << "loyalty points earned once per shipment";
  EXPECT_EQ(stores.scalar("fulfilment", "SELECT count(*) FROM shipments"), orders);
  EXPECT_EQ(stores.scalar("fulfilment", "SELECT count FROM stock WHERE sku = 'widget'"),
            crash_restart::kOpeningStock - expected_quantity)
      << "stock taken once per order";
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
  for (const std::string_view effect_name : crash_restart::journal::kEffects) {
    const std::string effect(effect_name);
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
