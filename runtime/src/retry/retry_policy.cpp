#include "whizbang/retry/retry_policy.hpp"

#include <algorithm>

namespace whizbang {

RetryDecision RetryPolicy::decide(int failures_before) const {
  // Retry n (1-based) follows failure n; the first `immediate_retries` of them wait nothing.
  const int retry = std::max(failures_before, 0) + 1;
  RetryDecision decision;
  decision.max_attempts = std::max(max_attempts, 0);
  if (retry > immediate_retries) {
    decision.wait = std::chrono::duration_cast<std::chrono::microseconds>(
        backoff.delay_with_jitter(retry - std::max(immediate_retries, 0)));
  }
  return decision;
}

}  // namespace whizbang
