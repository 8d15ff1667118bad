// PerspectiveRebuildBlueGreenTests: while a blue-green rebuild runs, a reader on another store
// connection sees only the old models (stamp 1); after the swap only the new ones (stamp 2);
// never a mix. In place, the same reader does see a mix: the check can tell.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "rebuild_fixture.hpp"

namespace rebuild {
namespace {

// The stamps of every model of `streams`, read in one snapshot. A ReadTransaction, not a
// Transaction: a reader looping on SQLite's write lock starves the rebuild's writes.
std::set<int> stamps(whizbang::WorkStore& store, const std::vector<whizbang::Uuid>& streams) {
  std::set<int> out;
  whizbang::ReadTransaction tx(store);
  EXPECT_TRUE(tx.status().ok()) << tx.status();
  for (const whizbang::Uuid& stream : streams) {
    auto row = store.load_perspective_model(kCart, stream);
    EXPECT_TRUE(row.ok() && row->has_value());
    if (!row.ok() || !row->has_value()) continue;
    const std::string& json = (*row)->model_json;
    const auto at = json.find("\"stamp\":");
    if (at != std::string::npos) out.insert(json[at + 8] - '0');
  }
  EXPECT_TRUE(tx.end().ok());
  return out;
}

// Rebuilds with stamp 2 while a reader thread reads every model over and over; the first batch
// waits until the reader has read after it. Returns every set of stamps a read saw meanwhile.
std::vector<std::set<int>> rebuild_while_reading(RebuildFixture& f, whizbang::RebuildMode mode) {
  auto reader_store = f.open_store(whizbang::MessageId::mint().uuid());
  std::mutex mutex;
  std::condition_variable changed;
  bool batch_committed = false;
  int reads_after_batch = 0;
  std::atomic<bool> done{false};
  std::vector<std::set<int>> seen;
  std::thread reader([&] {
    while (!done) {
      // Counted only when the read began after the batch committed: a snapshot taken before
      // it would show the old stamps.
      bool began_after_batch = false;
      {
        std::lock_guard lock(mutex);
        began_after_batch = batch_committed;
      }
      std::set<int> read = stamps(*reader_store, f.streams);
      std::lock_guard lock(mutex);
      if (began_after_batch) {
        seen.push_back(std::move(read));
        ++reads_after_batch;
        changed.notify_all();
      }
    }
  });
  f.settings.stamp = 2;
  whizbang::RebuildOptions options;
  options.mode = mode;
  options.batch_streams = 10;
  bool first = true;
  options.progress = [&](const whizbang::RebuildProgress&) {
    if (!first) return;
    first = false;
    std::unique_lock lock(mutex);
    batch_committed = true;
    changed.wait(lock, [&] { return reads_after_batch >= 1; });
  };
  auto result = f.rebuilder(*f.store)->rebuild(kCart, options);
  EXPECT_TRUE(result.ok()) << result.status();
  done = true;
  reader.join();
  EXPECT_EQ(stamps(*reader_store, f.streams), std::set<int>{2});
  return seen;
}

class PerspectiveRebuildBlueGreenTests : public ::testing::TestWithParam<Backend> {};

TEST_P(PerspectiveRebuildBlueGreenTests, ConcurrentReader_SeesOnlyOldThenOnlyNewModels_NeverAMix) {
  RebuildFixture f(GetParam());
  f.append_streams(100, 4);
  f.apply_live();
  const auto seen = rebuild_while_reading(f, whizbang::RebuildMode::BlueGreen);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), std::set<int>{1});  // the read after the first batch
  for (const std::set<int>& read : seen) EXPECT_EQ(read.size(), 1u) << "a mix of stamps";
}

TEST_P(PerspectiveRebuildBlueGreenTests, InPlace_TheSameReaderSeesAMix) {
  RebuildFixture f(GetParam());
  f.append_streams(100, 4);
  f.apply_live();
  const auto seen = rebuild_while_reading(f, whizbang::RebuildMode::InPlace);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), (std::set<int>{1, 2}));
}

// The SQL backends, each reader in a ReadTransaction (one snapshot) on a connection of its own.
INSTANTIATE_TEST_SUITE_P(Backends, PerspectiveRebuildBlueGreenTests,
                         ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         whizbang_test::backend_name);

}  // namespace
}  // namespace rebuild
