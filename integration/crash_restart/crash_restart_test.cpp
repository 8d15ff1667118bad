// CrashRestartTests: the two services, in one process and stepped, are killed with SIGKILL at
// random moments while they move orders through outbox -> transport -> inbox -> cascade -> outbox
// -> inbox -> perspective, and restarted on the same SQLite files, until a last incarnation
// finishes. Then the stores must hold every order exactly once — nothing lost, nothing
// duplicated, nothing left pending — and every receptor's side effect must have happened once.
//
// WHIZBANG_CRASH_ORDERS, WHIZBANG_CRASH_KILLS and WHIZBANG_CRASH_SEED make other runs; the seed
// comes from the clock unless given, and is printed.
#include <algorithm>
#include <random>

#include "harness_support.hpp"

namespace {

using namespace crash_harness;

TEST(CrashRestartTests, KilledAtRandomMoments_EveryOrderLandsExactlyOnce) {
  const int orders = env_or("WHIZBANG_CRASH_ORDERS", 1500);
  const int max_kills = env_or("WHIZBANG_CRASH_KILLS", 12);
  const int seed = seed_from_env_or_clock();
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  std::printf("[ harness  ] WHIZBANG_CRASH_SEED=%d, %d orders, %d kills\n", seed, orders,
              max_kills);
  const std::filesystem::path dir = std::filesystem::path(CRASH_RESTART_DATA_DIR) /
                                    ("stepped-" + std::to_string(static_cast<long>(getpid())));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path journal = dir / "effects.journal";
  const SqliteStores stores(dir);

  ASSERT_EQ(wait_for(spawn_worker({dir.string(), "submit", std::to_string(orders)}, journal)), 0);

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
  int finished_code = -1;
  bool finished = false;
  std::set<pid_t> killed;
  auto spawn_incarnation = [&] {
    return spawn_worker({dir.string(), "work", std::to_string(incarnation++)}, journal);
  };
  pid_t running = 0;  // the live incarnation, 0 once reaped
  const ReapOnExit reap(running);
  for (const std::int64_t target : targets) {
    const pid_t pid = running = spawn_incarnation();
    ASSERT_GT(pid, 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!finished && steps_done(stores) < target) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no progress towards " << target;
      finished = ended_within(pid, std::chrono::milliseconds(1), finished_code);
    }
    if (finished ||
        ended_within(pid, std::chrono::milliseconds(jitter_ms(random)), finished_code)) {
      running = 0;
      finished = true;
      break;
    }
    kill(pid, SIGKILL);
    finished_code = wait_for(pid);
    running = 0;
    if (finished_code == 0) {  // it finished just before the signal
      finished = true;
      break;
    }
    ASSERT_EQ(finished_code, -SIGKILL);
    killed.insert(pid);
    std::printf("[ harness  ] kill %2zu at %5lld of %d steps (target %lld)\n", killed.size(),
                static_cast<long long>(steps_done(stores)), 5 * orders,
                static_cast<long long>(target));
  }
  if (!finished) finished_code = wait_for(spawn_incarnation());
  ASSERT_EQ(finished_code, 0) << "the last incarnation did not finish cleanly";
  std::printf("[ harness  ] %d orders, %zu incarnations killed\n", orders, killed.size());
  // Every target short of the end is reached before the work is done.
  EXPECT_GE(static_cast<int>(killed.size()), max_kills - 1)
      << "the work finished before the kills landed";

  expect_every_order_stored_once(stores, orders);
  expect_every_effect_once(journal, killed, orders);
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
