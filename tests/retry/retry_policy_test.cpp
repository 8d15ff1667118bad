// RetryPolicy's schedule and the exception type a failure keeps (docs/guide/11-failures.md,
// "Retry policies").
#include <gtest/gtest.h>

#include <stdexcept>
#include <whizbang/retry/failure.hpp>
#include <whizbang/retry/retry_policy.hpp>

namespace retry_test {

struct QuotaExceeded : std::runtime_error {
  QuotaExceeded() : std::runtime_error("quota") {}
};

namespace {

using namespace std::chrono_literals;

TEST(RetryPolicyTests, ImmediateRetriesWaitNothing_ThenTheBackoffFromItsStart) {
  whizbang::RetryPolicy policy;
  policy.immediate_retries = 2;
  policy.backoff = {.initial = 1s, .factor = 3, .cap = 5s, .jitter = 0};
  policy.max_attempts = 7;
  EXPECT_EQ(policy.decide(0), (whizbang::RetryDecision{0s, 7}));  // after the 1st failure
  EXPECT_EQ(policy.decide(1), (whizbang::RetryDecision{0s, 7}));
  EXPECT_EQ(policy.decide(2), (whizbang::RetryDecision{1s, 7}));  // the first delayed retry
  EXPECT_EQ(policy.decide(3), (whizbang::RetryDecision{3s, 7}));
  EXPECT_EQ(policy.decide(4), (whizbang::RetryDecision{5s, 7}));  // capped
}

TEST(RetryPolicyTests, Default_IsTheStoresSchedule) {
  const whizbang::RetryPolicy policy;
  EXPECT_TRUE(policy.retryable);
  EXPECT_EQ(policy.decide(0).wait, 60s);
  EXPECT_EQ(policy.decide(1).wait, 120s);
  EXPECT_EQ(policy.decide(2).wait, 240s);
  EXPECT_EQ(policy.decide(3).wait, 300s);
  EXPECT_EQ(policy.decide(0).max_attempts, 0) << "0: the store's max_attempts";
  EXPECT_FALSE(whizbang::RetryPolicy::dead_letter_at_once().retryable);
}

TEST(RetryPolicyTests, Jitter_SpreadsEachWaitWithinItsBounds) {
  whizbang::RetryPolicy policy;
  policy.backoff = {.initial = 10s, .factor = 1, .cap = 10s, .jitter = 0.2};
  bool varied = false;
  for (int i = 0; i < 200; ++i) {
    const auto wait = policy.decide(0).wait;
    EXPECT_GE(wait, 8s);
    EXPECT_LE(wait, 12s);
    varied = varied || wait != 10s;
  }
  EXPECT_TRUE(varied);
}

TEST(ExceptionTypeTests, ThrownType_IsKeptOnTheStatus_AnyTypeNotOnlyStdExceptions) {
  const absl::Status own =
      whizbang::status_of_call("receptor r", []() -> absl::Status { throw QuotaExceeded(); });
  EXPECT_EQ(whizbang::exception_type(own), "retry_test::QuotaExceeded");
  EXPECT_EQ(whizbang::exception_type(own), whizbang::demangled_type_name(typeid(QuotaExceeded)));
  const absl::Status number =
      whizbang::status_of_call("receptor r", []() -> absl::Status { throw 42; });
  EXPECT_EQ(whizbang::exception_type(number), "int");
  EXPECT_EQ(whizbang::exception_type(absl::UnknownError("no exception")), "");
  EXPECT_EQ(whizbang::exception_type(absl::OkStatus()), "");
}

}  // namespace
}  // namespace retry_test
