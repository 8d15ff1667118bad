// The `serve` processes of a process harness: one per role, started, killed and restarted by
// the test while the others run, and finally stopped with SIGTERM. Used by the harness over the
// stores (services_as_processes_test) and the one over RabbitMQ (rabbitmq_processes_test).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "harness_support.hpp"

namespace crash_harness {

// `count` moments to strike at, in steps done (of 5 per order), sorted: drawn from
// [first_step, 90% of all steps] (an incarnation past that usually finishes within the jitter).
template <class Random>
std::vector<std::int64_t> strike_targets(Random& random, std::size_t count, int orders,
                                         std::int64_t first_step) {
  std::vector<std::int64_t> targets(count);
  std::uniform_int_distribution<std::int64_t> step(first_step, 5 * std::int64_t{orders} * 9 / 10);
  for (std::int64_t& target : targets) target = step(random);
  std::sort(targets.begin(), targets.end());
  return targets;
}

class ServeProcesses {
 public:
  // `extra` follows "serve <role>" on every command line (e.g. an AMQP URL). `stores`: where the
  // services keep their rows (default: SQLite files in `dir`).
  ServeProcesses(std::filesystem::path dir, std::vector<std::string> roles,
                 std::vector<std::string> extra = {}, std::unique_ptr<Stores> stores = nullptr)
      : dir_(std::move(dir)),
        journal_(dir_ / "effects.journal"),
        roles_(std::move(roles)),
        extra_(std::move(extra)),
        stores_(stores ? std::move(stores) : std::make_unique<SqliteStores>(dir_)),
        pids_(roles_.size(), 0) {}
  ServeProcesses(const ServeProcesses&) = delete;
  ServeProcesses& operator=(const ServeProcesses&) = delete;
  // A failed assertion returns early: no worker may outlive the test.
  ~ServeProcesses() {
    for (const pid_t pid : pids_) {
      if (pid <= 0) continue;
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& journal() const { return journal_; }
  const Stores& stores() const { return *stores_; }
  // Each role's processes start in that network namespace (ChaosNetwork::namespace_of).
  void run_in_namespaces(std::map<std::string, std::string> namespaces) {
    namespaces_ = std::move(namespaces);
  }
  const std::set<pid_t>& killed() const { return killed_; }
  std::size_t size() const { return roles_.size(); }
  const std::string& role(std::size_t index) const { return roles_[index]; }

  // A fresh data directory, and `orders` orders submitted into it (before any process runs).
  void submit(int orders) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ASSERT_EQ(wait_for(spawn_worker({dir_.string(), "submit", std::to_string(orders)}, journal_,
                                    stores_->worker_locations())),
              0);
  }

  void spawn(std::size_t index) {
    std::vector<std::string> args = {dir_.string(), "serve", roles_[index]};
    args.insert(args.end(), extra_.begin(), extra_.end());
    const auto network = namespaces_.find(roles_[index]);
    pids_[index] = spawn_worker(args, journal_, stores_->worker_locations(),
                                network == namespaces_.end() ? std::string() : network->second);
  }

  // Waits until the process has subscribed and started (it creates <dir>/ready-<pid>).
  void await_ready(std::size_t index) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    const std::filesystem::path ready = dir_ / ("ready-" + std::to_string(pids_[index]));
    while (!std::filesystem::exists(ready)) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << roles_[index] << " never ready";
      expect_all_running();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a file, not a sync
    }
  }

  // Fails the test when a process ended by itself (it should only end when told to).
  void expect_all_running() {
    for (std::size_t i = 0; i < pids_.size(); ++i) {
      int code = 0;
      if (pids_[i] > 0 && ended_within(pids_[i], std::chrono::milliseconds(0), code)) {
        ADD_FAILURE() << roles_[i] << " process " << pids_[i] << " ended by itself (" << code
                      << ")";
        spawn(i);
      }
    }
  }

  // Waits until the stores show `target` steps done.
  void await_steps(std::int64_t target) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (steps_done(*stores_) < target) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no progress towards " << target;
      expect_all_running();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // progress, not a sync
    }
  }

  // SIGKILL of one process, then its successor.
  void kill_and_restart(std::size_t index) {
    const pid_t pid = pids_[index];
    kill(pid, SIGKILL);
    ASSERT_EQ(wait_for(pid), -SIGKILL) << roles_[index] << " ended before it was killed";
    killed_.insert(pid);
    spawn(index);
  }

  // The survivors finish every order's steps with nothing owed anywhere; then every process is
  // stopped with SIGTERM and must exit cleanly; then the stores and the journal are checked.
  // `deliveries_per_order` (0: not counted): the messages each store receives per order. Over a
  // broker, a store also receives copies that are no step (a service's own events, handled once
  // already): the check waits for them too, or one still in flight would land after the stop.
  void finish_and_check(int orders, std::chrono::steady_clock::time_point started,
                        int deliveries_per_order = 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
    while (steps_done(*stores_) < 5 * std::int64_t{orders} || rows_owed(*stores_) > 0 ||
           deliveries_owed(*stores_, orders, deliveries_per_order) > 0) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "stuck at " << steps_done(*stores_) << " of " << 5 * orders << " steps, "
          << rows_owed(*stores_) << " rows owed, "
          << deliveries_owed(*stores_, orders, deliveries_per_order) << " deliveries owed ("
          << describe_steps(*stores_) << ")";
      expect_all_running();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // A successor spawned by the last chaos event may not have blocked SIGTERM yet (the default
    // action would kill it): each process is told to stop only once it is ready.
    for (std::size_t i = 0; i < pids_.size(); ++i) await_ready(i);
    for (const pid_t pid : pids_) kill(pid, SIGTERM);
    for (std::size_t i = 0; i < pids_.size(); ++i) {
      EXPECT_EQ(wait_for(pids_[i]), 0) << roles_[i] << " did not stop cleanly on SIGTERM";
      pids_[i] = 0;
    }
    std::printf("[ harness  ] %d orders in %.1f s, %zu processes killed\n", orders,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                killed_.size());
    expect_every_order_stored_once(*stores_, orders);
    expect_every_effect_once(journal_, killed_, orders);
    if (!::testing::Test::HasFailure()) {
      std::filesystem::remove_all(dir_);
      stores_->discard();
    }
  }

 private:
  std::filesystem::path dir_;
  std::filesystem::path journal_;
  std::vector<std::string> roles_;
  std::vector<std::string> extra_;
  std::unique_ptr<Stores> stores_;
  std::map<std::string, std::string> namespaces_;
  std::vector<pid_t> pids_;
  std::set<pid_t> killed_;
};

}  // namespace crash_harness
