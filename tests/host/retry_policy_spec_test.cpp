// Retry policies as a process's flags give them (`--retry RULE=POLICY`,
// docs/guide/14-running-services.md): each rule and key read as written, mistakes refused with
// what is wrong.
#include <gtest/gtest.h>
#include <whizbang/host/service_runner_retry.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace retry_spec_test {

struct GatewayTimeout : std::runtime_error {
  GatewayTimeout() : std::runtime_error("timeout") {}
};

namespace {

using namespace std::chrono_literals;

absl::Status thrown_gateway_timeout() {
  return whizbang::status_of_call("receptor r", []() -> absl::Status { throw GatewayTimeout(); });
}

TEST(RetryPolicySpecTests, EveryRuleAndKey_ReadAsWritten) {
  const std::vector<std::string> specs = {
      "exception:retry_spec_test::GatewayTimeout=immediate=2,initial=500ms,factor=3,cap=1m,"
      "jitter=0.1,max=8",
      "code:DEADLINE_EXCEEDED=dead-letter",
      "reason:TransportException=initial=5s,cap=1h",
      "default=max=5",
  };
  auto policies = whizbang::parse_retry_policy_specs(specs);
  ASSERT_TRUE(policies.ok()) << policies.status();
  using whizbang::FailureReason;
  const whizbang::RetryPolicy& gateway =
      policies->policy_for(thrown_gateway_timeout(), FailureReason::Unknown);
  EXPECT_EQ(gateway.immediate_retries, 2);
  EXPECT_EQ(gateway.backoff.initial, 500ms);
  EXPECT_EQ(gateway.backoff.factor, 3);
  EXPECT_EQ(gateway.backoff.cap, 1min);
  EXPECT_DOUBLE_EQ(gateway.backoff.jitter, 0.1);
  EXPECT_EQ(gateway.max_attempts, 8);
  EXPECT_FALSE(
      policies->policy_for(absl::DeadlineExceededError("slow"), FailureReason::Unknown).retryable);
  const whizbang::RetryPolicy& transport =
      policies->policy_for(absl::UnavailableError("broker"), FailureReason::TransportException);
  EXPECT_EQ(transport.backoff.initial, 5s);
  EXPECT_EQ(transport.backoff.cap, 1h);
  EXPECT_EQ(transport.max_attempts, 0) << "not given: the store's max";
  EXPECT_EQ(policies->policy_for(absl::InternalError("x"), FailureReason::Unknown).max_attempts, 5);
}

TEST(RetryPolicySpecTests, Mistakes_AreRefusedSayingWhat) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"default", "not RULE=POLICY"},
      {"sometimes=max=1", "the rule is default"},
      {"code:SLOW=max=1", "unknown status code"},
      {"reason:Bad=max=1", "unknown failure reason"},
      {"default=retries=3", "unknown key 'retries'"},
      {"default=initial=5", "'5' is not a valid initial"},
      {"default=max=-1", "'-1' is not a valid max"},
      {"default=jitter=2", "'2' is not a valid jitter"},
      {"default=factor=0.5", "'0.5' is not a valid factor"},
      {"default=initial=10s,cap=1s", "cap is below initial"},
      {"default=max", "'max' is not KEY=VALUE"},
      {"exception:=max=1", "the rule is default"},
  };
  for (const auto& [spec, why] : cases) {
    whizbang::RetryPolicies policies;
    const absl::Status status = whizbang::add_retry_policy_spec(spec, policies);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_NE(std::string(status.message()).find(why), std::string::npos)
        << spec << ": " << status.message();
    EXPECT_TRUE(policies.is_default()) << spec << ": a refused rule adds nothing";
  }
}

}  // namespace
}  // namespace retry_spec_test
