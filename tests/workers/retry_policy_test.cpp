// Retry policies (docs/guide/11-failures.md, "Retry policies"): a failed handling gets the
// policy of its exception's type, status code or failure reason, or the default; the policy
// says how many retries come at once, how long the later ones wait, and when the row is
// dead-lettered. Before, every failure got the store's fixed 60/120/240/300 s schedule.
#include <gtest/gtest.h>

#include <stdexcept>

#include "one_message_inbox_fixture.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/store/retry_policies.hpp"

namespace store_test {

// A receptor's own exception types, as a user declares them.
struct GatewayTimeout : std::runtime_error {
  GatewayTimeout() : std::runtime_error("gateway timed out") {}
};
struct CardDeclined : std::runtime_error {
  CardDeclined() : std::runtime_error("card declined") {}
};

namespace {

using namespace std::chrono_literals;
using whizbang::RetryPolicies;
using whizbang::RetryPolicy;

// What the dispatcher makes of a receptor that throws (the same conversion).
template <class Exception>
absl::Status thrown() {
  return whizbang::status_of_call("receptor shop::Payments",
                                  []() -> absl::Status { throw Exception(); });
}

RetryPolicy gateway_policy() {
  RetryPolicy policy;
  policy.immediate_retries = 2;
  policy.backoff = {.initial = 10s, .factor = 2, .cap = 60s, .jitter = 0};
  policy.max_attempts = 4;
  return policy;
}

template <class Backend>
class RetryPolicyTests : public OneMessageInboxTest<Backend> {
 protected:
  void make_worker(RetryPolicies policies, std::function<absl::Status()> outcome) {
    whizbang::InboxWorkerOptions options;
    options.retry_policies = std::move(policies);
    OneMessageInboxTest<Backend>::make_worker(std::move(options), std::move(outcome));
  }
};

TYPED_TEST_SUITE(RetryPolicyTests, Backends, BackendNames);

TYPED_TEST(RetryPolicyTests, ExceptionTypePolicy_ImmediateRetriesThenBackoffThenItsMax) {
  this->make_worker(RetryPolicies().on_exception<GatewayTimeout>(gateway_policy()),
                    [] { return thrown<GatewayTimeout>(); });
  // The first failure and two immediate retries: each claimable by the very next cycle.
  for (int attempt = 1; attempt <= 3; ++attempt) {
    EXPECT_EQ(this->cycle().failed, 1u) << "attempt " << attempt;
  }
  EXPECT_EQ(this->calls_, 3);
  // Then the backoff: 10 s before the fourth attempt.
  EXPECT_EQ(this->cycle().failed, 0u);
  this->clock_.advance(9s);
  EXPECT_EQ(this->cycle().failed, 0u);
  this->clock_.advance(2s);
  EXPECT_EQ(this->cycle().failed, 1u);
  // The fourth attempt was its last (max_attempts 4, the store's own max is 10).
  const auto dead = this->row();
  ASSERT_TRUE(dead.has_value());
  EXPECT_TRUE(dead->state.dead_lettered_at.has_value());
  EXPECT_EQ(dead->state.attempts, 4);
  EXPECT_EQ(dead->state.failure_reason, whizbang::FailureReason::MaxAttemptsExceeded);
  this->clock_.advance(1h);
  EXPECT_EQ(this->cycle().failed, 0u);
  EXPECT_EQ(this->calls_, 4);
}

TYPED_TEST(RetryPolicyTests, NonRetryableException_DeadLettersAtTheFirstFailure) {
  this->make_worker(RetryPolicies().on_exception<CardDeclined>(RetryPolicy::dead_letter_at_once()),
                    [] { return thrown<CardDeclined>(); });
  EXPECT_EQ(this->cycle().failed, 1u);
  const auto dead = this->row();
  ASSERT_TRUE(dead.has_value());
  EXPECT_TRUE(dead->state.dead_lettered_at.has_value());
  EXPECT_EQ(dead->state.attempts, 1);
  EXPECT_NE(dead->state.error.find("card declined"), std::string::npos);
}

TYPED_TEST(RetryPolicyTests, OtherException_GetsTheDefault_TheStoresSchedule) {
  this->make_worker(RetryPolicies().on_exception<GatewayTimeout>(gateway_policy()),
                    [] { return thrown<CardDeclined>(); });
  EXPECT_EQ(this->cycle().failed, 1u);
  this->clock_.advance(59s);
  EXPECT_EQ(this->cycle().failed, 0u) << "the default waits 60 s";
  this->clock_.advance(2s);
  EXPECT_EQ(this->cycle().failed, 1u);
}

// ---- which policy: the order of the rules ---------------------------------------------------

TEST(RetryPoliciesTests, ExceptionType_ThenCode_ThenReason_ThenDefault_PermanentAlwaysDeadLetters) {
  RetryPolicy by_type;
  by_type.max_attempts = 1;
  RetryPolicy by_code;
  by_code.max_attempts = 2;
  RetryPolicy by_reason;
  by_reason.max_attempts = 3;
  RetryPolicy fallback;
  fallback.max_attempts = 4;
  RetryPolicies policies;
  policies.on_exception<GatewayTimeout>(by_type)
      .on_code(absl::StatusCode::kDeadlineExceeded, by_code)
      .on_reason(whizbang::FailureReason::TransportException, by_reason)
      .otherwise(fallback);
  using whizbang::FailureReason;
  EXPECT_EQ(policies.policy_for(thrown<GatewayTimeout>(), FailureReason::TransportException),
            by_type);
  EXPECT_EQ(
      policies.policy_for(absl::DeadlineExceededError("slow"), FailureReason::TransportException),
      by_code);
  EXPECT_EQ(policies.policy_for(thrown<CardDeclined>(), FailureReason::TransportException),
            by_reason);
  EXPECT_EQ(policies.policy_for(thrown<CardDeclined>(), FailureReason::Unknown), fallback);
  const absl::Status permanent =
      whizbang::status_of_call("receptor shop::Payments",
                               []() -> absl::Status { throw whizbang::PermanentFailure("never"); });
  EXPECT_FALSE(policies.policy_for(permanent, FailureReason::Unknown).retryable);
}

TEST(RetryPoliciesTests, NothingConfigured_LeavesTheStoresSchedule) {
  whizbang::WorkFailure failure;
  RetryPolicies().apply(thrown<GatewayTimeout>(), 0, failure);
  EXPECT_FALSE(failure.retry.has_value());
  EXPECT_FALSE(failure.dead_letter);
}

}  // namespace
}  // namespace store_test
