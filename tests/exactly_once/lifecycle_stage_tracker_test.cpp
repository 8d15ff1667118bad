// LifecycleStageTracker: one claim per (message, stage[, perspective]) so two workers reaching a
// stage for the same message fire its receptors once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "whizbang/exactly_once/lifecycle_stage_tracker.hpp"

namespace whizbang {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

TEST(LifecycleStageTrackerTests, FirstClaim_WinsAndTheSecondLoses) {
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostInboxInline));
  EXPECT_EQ(tracker.size(), 1u);
}

TEST(LifecycleStageTrackerTests, OtherMessageOrOtherStage_ClaimsSeparately) {
  LifecycleStageTracker tracker;
  const MessageId first = MessageId::mint();
  const MessageId second = MessageId::mint();
  EXPECT_TRUE(tracker.try_claim(first, Stage::PostInboxInline));
  EXPECT_TRUE(tracker.try_claim(second, Stage::PostInboxInline));
  EXPECT_TRUE(tracker.try_claim(first, Stage::PostInboxDetached));
  EXPECT_EQ(tracker.size(), 3u);
}

TEST(LifecycleStageTrackerTests, PerspectiveScopedStage_EachPerspectiveClaimsSeparately) {
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostPerspectiveInline, "shop::OrderSummary"));
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostPerspectiveInline, "shop::CustomerHistory"));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostPerspectiveInline, "shop::OrderSummary"));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostPerspectiveInline, "shop::CustomerHistory"));
  EXPECT_EQ(tracker.size(), 2u);
}

TEST(LifecycleStageTrackerTests, MessageScopedStage_IgnoresThePerspective) {
  // PostInboxInline fires once per message, whichever perspective name a caller passes.
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostInboxInline, "shop::OrderSummary"));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostInboxInline, "shop::CustomerHistory"));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostInboxInline));
  EXPECT_EQ(tracker.size(), 1u);
}

TEST(LifecycleStageTrackerTests, Release_LetsARetryClaim) {
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostLifecycleInline));
  tracker.release(id, Stage::PostLifecycleInline);
  EXPECT_EQ(tracker.size(), 0u);
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostLifecycleInline));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostLifecycleInline));
}

TEST(LifecycleStageTrackerTests, ReleaseOfOnePerspective_KeepsTheOthersClaimed) {
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  ASSERT_TRUE(tracker.try_claim(id, Stage::PrePerspectiveDetached, "a::One"));
  ASSERT_TRUE(tracker.try_claim(id, Stage::PrePerspectiveDetached, "a::Two"));
  tracker.release(id, Stage::PrePerspectiveDetached, "a::One");
  EXPECT_EQ(tracker.size(), 1u);
  EXPECT_TRUE(tracker.try_claim(id, Stage::PrePerspectiveDetached, "a::One"));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PrePerspectiveDetached, "a::Two"));
}

TEST(LifecycleStageTrackerTests, ReleaseOfAnUnclaimedKey_ChangesNothing) {
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  tracker.release(MessageId::mint(), Stage::PostInboxInline);
  tracker.release(id, Stage::PostInboxDetached);
  EXPECT_EQ(tracker.size(), 1u);
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostInboxInline));
}

TEST(LifecycleStageTrackerTests, PurgeWithALargeMaxAge_KeepsRecentClaims) {
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostPerspectiveInline, "a::One"));
  EXPECT_EQ(tracker.purge(hours(1)), 0u);
  EXPECT_EQ(tracker.size(), 2u);
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostInboxInline));
}

TEST(LifecycleStageTrackerTests, PurgeWithANegativeMaxAge_DropsEveryClaimAndFreesItsKey) {
  // A negative age puts the cut-off after now: every claim made so far is older.
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostPerspectiveInline, "a::One"));
  EXPECT_EQ(tracker.purge(-seconds(1)), 2u);
  EXPECT_EQ(tracker.size(), 0u);
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
}

TEST(LifecycleStageTrackerTests, PurgeOfAnEmptyTracker_DropsNothing) {
  LifecycleStageTracker tracker;
  EXPECT_EQ(tracker.purge(-seconds(1)), 0u);
  EXPECT_EQ(tracker.size(), 0u);
}

TEST(LifecycleStageTrackerTests, ConcurrentClaimsOfOneKey_ExactlyOneWins) {
  LifecycleStageTracker tracker;
  const MessageId id = MessageId::mint();
  constexpr int kThreads = 8;
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      if (tracker.try_claim(id, Stage::PostInboxInline)) winners.fetch_add(1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(tracker.size(), 1u);
}

}  // namespace
}  // namespace whizbang
