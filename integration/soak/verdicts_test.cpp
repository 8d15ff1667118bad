// SoakVerdictsTests: the soak's pass/fail rules (verdicts.hpp) on made-up series: growth judged
// per incarnation after its warm-up, the backlog judged on its trend.
#include "verdicts.hpp"

#include <gtest/gtest.h>

namespace soak_verdicts_test {

// An incarnation started at `started_s`, sampled every 5 s with the RSS (KiB) and fds given.
soak::Incarnation incarnation_of(double started_s, const std::vector<std::int64_t>& rss,
                                 const std::vector<int>& fds) {
  soak::Incarnation incarnation;
  incarnation.service = "sales";
  incarnation.started_s = started_s;
  for (std::size_t i = 0; i < rss.size(); ++i) {
    incarnation.samples.push_back({started_s + 5.0 * static_cast<double>(i + 1), rss[i], fds[i]});
  }
  return incarnation;
}

TEST(SoakVerdictsTests, RssGrowingMoreThanTheLimitAfterTheWarmUp_Fails) {
  const soak::GrowthVerdict verdict = soak::judge_growth(
      incarnation_of(0, {1000, 1000, 1000, 1000, 1050, 1100, 1150, 1200}, std::vector<int>(8, 10)),
      /*warm_up_s=*/10, /*limit=*/0.10);
  EXPECT_TRUE(verdict.judged);
  EXPECT_TRUE(verdict.grew) << verdict.summary;
}

TEST(SoakVerdictsTests, GrowthWithinTheWarmUpAndNoiseAfterIt_Passes) {
  // Doubles during the warm-up (its first 12 s: two samples), then one spike among flat samples.
  const soak::GrowthVerdict verdict =
      soak::judge_growth(incarnation_of(60, {500, 900, 1000, 1010, 995, 1600, 1000, 1005, 1002},
                                        {8, 10, 10, 10, 10, 14, 10, 10, 10}),
                         12, 0.10);
  EXPECT_TRUE(verdict.judged);
  EXPECT_FALSE(verdict.grew) << verdict.summary;
}

TEST(SoakVerdictsTests, FdsGrowingMoreThanTheLimit_Fails) {
  const soak::GrowthVerdict verdict = soak::judge_growth(
      incarnation_of(0, std::vector<std::int64_t>(8, 1000), {10, 10, 10, 10, 11, 12, 12, 13}), 10,
      0.10);
  EXPECT_TRUE(verdict.grew) << verdict.summary;
}

TEST(SoakVerdictsTests, TooFewSamplesAfterTheWarmUp_NotJudged) {
  const soak::GrowthVerdict verdict = soak::judge_growth(
      incarnation_of(0, {1000, 1000, 1000, 3000, 4000, 5000, 6000}, std::vector<int>(7, 10)),
      /*warm_up_s=*/15, 0.10);
  EXPECT_FALSE(verdict.judged);
  EXPECT_FALSE(verdict.grew);
}

TEST(SoakVerdictsTests, BacklogRisingThreeReportsInARowAboveTenSecondsOfTheRate_Fails) {
  EXPECT_TRUE(soak::judge_backlog({900, 10, 150, 300, 450}, /*rate=*/20).has_value());
}

TEST(SoakVerdictsTests, BacklogThatFallsBackOrStaysSmall_Passes) {
  EXPECT_FALSE(soak::judge_backlog({900, 10, 150, 300, 250}, 20).has_value());
  EXPECT_FALSE(soak::judge_backlog({0, 1, 2, 3, 4, 5}, 20).has_value());  // under 200 rows
  EXPECT_FALSE(soak::judge_backlog({0, 500, 600, 700}, 20).has_value());  // the first is warm-up
}

}  // namespace soak_verdicts_test
