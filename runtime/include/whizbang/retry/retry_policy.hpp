// RetryPolicy: what happens after a handling or a publish fails (docs/guide/11-failures.md,
// "Retry policies"): a few retries at once, then retries with backoff, up to a number of
// attempts, then the dead letters; or the dead letters at once.
//
//   whizbang::RetryPolicy flaky_gateway;
//   flaky_gateway.immediate_retries = 2;                  // due again at once, twice
//   flaky_gateway.backoff = {.initial = std::chrono::seconds(1), .factor = 2,
//                            .cap = std::chrono::seconds(30), .jitter = 0.2};
//   flaky_gateway.max_attempts = 10;
//
// The default policy is the store's schedule before policies existed: 60 s, 120 s, 240 s, then
// 300 s, dead-lettered after StoreOptions::max_attempts. Which policy a failure gets is decided
// by RetryPolicies (whizbang/store/retry_policies.hpp).
#pragma once

#include <chrono>

#include "whizbang/retry/backoff.hpp"

namespace whizbang {

// The default schedule of a failed row's retries: 60 s, doubling, at most 300 s.
inline constexpr Backoff kDefaultRetryBackoff{
    .initial = std::chrono::seconds(60), .factor = 2, .cap = std::chrono::seconds(300)};

// One failure's outcome, as the store applies it to the failed row.
struct RetryDecision {
  // The wait before the row is offered again (zero: at once).
  std::chrono::microseconds wait{0};
  // The attempts after which the row is dead-lettered; 0: StoreOptions::max_attempts.
  int max_attempts = 0;
  friend bool operator==(const RetryDecision&, const RetryDecision&) = default;
};

struct RetryPolicy {
  // The first retries, due at once (the next poll claims them): for a blip, not an outage.
  int immediate_retries = 0;
  // The waits of the retries after the immediate ones (the first of them waits `initial`).
  Backoff backoff = kDefaultRetryBackoff;
  // Dead-lettered at this many attempts; 0: StoreOptions::max_attempts (10 by default).
  int max_attempts = 0;
  // False: the first failure dead-letters (an error no retry can fix).
  bool retryable = true;

  // A policy that dead-letters at the first failure.
  static RetryPolicy dead_letter_at_once() {
    RetryPolicy policy;
    policy.retryable = false;
    return policy;
  }

  // The decision after a failure of a row that had failed `failures_before` times (0: its first
  // failure). Jitter, when the backoff has some, is drawn here.
  RetryDecision decide(int failures_before) const;

  friend bool operator==(const RetryPolicy&, const RetryPolicy&) = default;
};

}  // namespace whizbang
