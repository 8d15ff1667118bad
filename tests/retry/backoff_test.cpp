#include "whizbang/retry/backoff.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace whizbang {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(BackoffTests, GrowsByItsFactorUpToItsCap) {
  constexpr Backoff backoff{.initial = milliseconds(100), .factor = 2, .cap = seconds(5)};
  EXPECT_EQ(backoff.delay(0), Backoff::Duration::zero());
  EXPECT_EQ(backoff.delay(1), milliseconds(100));
  EXPECT_EQ(backoff.delay(2), milliseconds(200));
  EXPECT_EQ(backoff.delay(4), milliseconds(800));
  EXPECT_EQ(backoff.delay(6), milliseconds(3200));
  EXPECT_EQ(backoff.delay(7), seconds(5));
  EXPECT_EQ(backoff.delay(1000), seconds(5));  // no overflow however many retries
}

TEST(BackoffTests, FactorOneWaitsTheSameEachTime) {
  constexpr Backoff constant{.initial = seconds(3), .factor = 1, .cap = seconds(10)};
  EXPECT_EQ(constant.delay(1), seconds(3));
  EXPECT_EQ(constant.delay(50), seconds(3));
}

TEST(BackoffTests, JitterStaysWithinItsSpread) {
  constexpr Backoff backoff{
      .initial = seconds(10), .factor = 2, .cap = seconds(100), .jitter = 0.2};
  for (int i = 0; i < 200; ++i) {
    const Backoff::Duration wait = backoff.delay_with_jitter(2);
    EXPECT_GE(wait, seconds(16));
    EXPECT_LE(wait, seconds(24));
  }
  EXPECT_EQ(Backoff{}.delay_with_jitter(3), Backoff{}.delay(3));  // no jitter: exact
}

TEST(BackoffTests, SequenceCountsRetriesAndStartsOverOnReset) {
  BackoffSequence waits(Backoff{.initial = milliseconds(10), .factor = 3, .cap = seconds(1)});
  EXPECT_EQ(waits.next(), milliseconds(10));
  EXPECT_EQ(waits.next(), milliseconds(30));
  EXPECT_EQ(waits.next(), milliseconds(90));
  EXPECT_EQ(waits.retries(), 3);
  waits.reset();
  EXPECT_EQ(waits.next(), milliseconds(10));
}

}  // namespace
}  // namespace whizbang
