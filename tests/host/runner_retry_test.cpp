// The runner's `--retry` rules (docs/guide/14-running-services.md, docs/guide/11-failures.md,
// "Retry policies") reach the host they start: its options, which every worker takes its
// policies from, and the invokers that record a Detached stage's failed run.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runner_receptors.hpp"
#include "support/temp_dir.hpp"
#include "whizbang/host/service_runner.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang_registry.hpp"

namespace runner_test::retry {
namespace {

TEST(RunnerRetryPolicyTests, RetryRules_ReachTheHostAndItsDetachedWork) {
  whizbang_test::TempDir dir;
  PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<PingCounter>(counter);
  whizbang::ServiceRunnerConfig config;
  config.service_name = "pinger";
  config.store = "sqlite:" + dir.file("pinger.db");
  config.http_port = 0;
  config.retry_policies = {"exception:std::runtime_error=dead-letter", "default=immediate=3"};
  auto runner = whizbang::ServiceRunner::start(
      whizbang::generated::runner_test_receptors::registry(), services, config);
  ASSERT_TRUE(runner.ok()) << runner.status();
  const absl::Status thrown = whizbang::status_of_call(
      "receptor r", []() -> absl::Status { throw std::runtime_error("down"); });
  const absl::Status other = absl::InternalError("other");
  using whizbang::FailureReason;
  whizbang::ServiceHost& host = (*runner)->host();
  for (const whizbang::RetryPolicies* policies :
       {&host.options().retry_policies, &host.invoker().options().retry_policies,
        &host.durable_invoker().options().retry_policies}) {
    EXPECT_FALSE(policies->policy_for(thrown, FailureReason::Unknown).retryable);
    EXPECT_EQ(policies->policy_for(other, FailureReason::Unknown).immediate_retries, 3);
  }
}

}  // namespace
}  // namespace runner_test::retry
