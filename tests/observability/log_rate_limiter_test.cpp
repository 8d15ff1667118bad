// LogRateLimiter (runtime/src/observability/log_rate_limiter.hpp) on an injected clock: the first
// occurrence of a message is logged, repeats at most once per interval with how many were held
// back, a new message at once, a flood of distinct messages within a bounded budget, and the
// recovery once.
#include "whizbang/observability/log_rate_limiter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace {

using namespace std::chrono_literals;
using whizbang::LogRateLimiter;

class LogRateLimiterTests : public ::testing::Test {
 protected:
  LogRateLimiter limiter_{10s, [this] { return now_; }};
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

TEST_F(LogRateLimiterTests, FirstOccurrence_IsLoggedWithoutASuffix) {
  const auto logged = limiter_.occurred("store down");
  ASSERT_TRUE(logged.has_value());
  EXPECT_EQ(logged->held_back, 0u);
  EXPECT_EQ(logged->suffix(), "");
}

TEST_F(LogRateLimiterTests, RepeatsWithinTheInterval_AreHeldBackThenCountedInTheNextLine) {
  ASSERT_TRUE(limiter_.occurred("store down"));
  for (int i = 0; i < 37; ++i) {
    now_ += 200ms;
    EXPECT_FALSE(limiter_.occurred("store down")) << "repeat " << i;
  }
  now_ += 10s - 37 * 200ms;  // exactly one interval after the first line
  const auto logged = limiter_.occurred("store down");
  ASSERT_TRUE(logged.has_value());
  EXPECT_EQ(logged->held_back, 37u);
  EXPECT_EQ(logged->since_previous, 10s);
  EXPECT_EQ(logged->suffix(), " (and 37 more like it in the last 10 s)");
  // The next interval starts at that line.
  now_ += 9s;
  EXPECT_FALSE(limiter_.occurred("store down"));
  now_ += 1s;
  const auto next = limiter_.occurred("store down");
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->suffix(), " (and 1 more like it in the last 10 s)");
}

TEST_F(LogRateLimiterTests, ADifferentMessage_IsLoggedAtOnce) {
  ASSERT_TRUE(limiter_.occurred("store down"));
  EXPECT_FALSE(limiter_.occurred("store down"));
  EXPECT_TRUE(limiter_.occurred("disk full"));
  EXPECT_FALSE(limiter_.occurred("disk full"));
  EXPECT_FALSE(limiter_.occurred("store down"));
}

TEST_F(LogRateLimiterTests, MessagesThatDifferEveryTime_ShareOneBudget) {
  int logged = 0;
  for (int i = 0; i < 1000; ++i) logged += limiter_.occurred("row " + std::to_string(i)) ? 1 : 0;
  EXPECT_EQ(logged, static_cast<int>(LogRateLimiter::kMaxMessages) + 1);
  now_ += 10s;
  EXPECT_TRUE(limiter_.occurred("row 1000"));
  EXPECT_FALSE(limiter_.occurred("row 1001"));
}

TEST_F(LogRateLimiterTests, Recovered_AnswersOnceWithTheTotals) {
  EXPECT_FALSE(limiter_.recovered()) << "nothing occurred";
  ASSERT_TRUE(limiter_.occurred("store down"));
  for (int i = 0; i < 5; ++i) {
    now_ += 1s;
    limiter_.occurred("store down");
  }
  now_ += 2500ms;
  const auto recovery = limiter_.recovered();
  ASSERT_TRUE(recovery.has_value());
  EXPECT_EQ(recovery->occurrences, 6u);
  EXPECT_EQ(recovery->never_logged, 5u);
  EXPECT_EQ(recovery->lasted, 7500ms);
  EXPECT_FALSE(limiter_.recovered());
  // A new outage is new: its first failure is logged at once.
  EXPECT_TRUE(limiter_.occurred("store down"));
}

TEST(LogRateLimiterSecondsTests, Seconds_ReadAsALogLineShowsThem) {
  EXPECT_EQ(LogRateLimiter::seconds(std::chrono::milliseconds(1500)), "1.5 s");
  EXPECT_EQ(LogRateLimiter::seconds(std::chrono::seconds(10)), "10 s");
  EXPECT_EQ(LogRateLimiter::seconds(std::chrono::milliseconds(12400)), "12 s");
}

}  // namespace
