// Retry policies as text, for a process's flags and configuration
// (docs/guide/14-running-services.md,
// `--retry`; docs/guide/11-failures.md, "Retry policies"):
//
//   RULE=POLICY
//   RULE:   default | exception:TYPE | code:STATUS_CODE | reason:FAILURE_REASON
//   POLICY: dead-letter | KEY=VALUE[,KEY=VALUE...] with keys immediate (retries at once),
//           initial, cap (durations: 500ms, 30s, 5m, 1h), factor, jitter (0..1), max (attempts)
//
//   exception:shop::GatewayTimeout=immediate=2,initial=1s,factor=2,cap=30s,max=8
//   exception:shop::CardDeclined=dead-letter
//   reason:TransportException=initial=5s,cap=1m
//   code:DEADLINE_EXCEEDED=immediate=1
//   default=max=5
//
// Keys not given keep RetryPolicy's defaults (the store's schedule: 60 s doubling to 300 s).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "whizbang/store/retry_policies.hpp"

namespace whizbang {

// Adds the rule `spec` to `policies`; InvalidArgument says which part is wrong.
absl::Status add_retry_policy_spec(std::string_view spec, RetryPolicies& policies);

// Every spec of `specs` into one RetryPolicies, in order (a later rule for the same key wins).
absl::StatusOr<RetryPolicies> parse_retry_policy_specs(std::span<const std::string> specs);

}  // namespace whizbang
