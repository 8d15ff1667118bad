// Backoff: how long a retry loop waits before its next attempt. One type for every loop that
// retries: a failed row's next attempt in the store, a transport's reconnect, a consumer whose
// handler keeps failing (docs/guide/11-failures.md).
//
// The wait before retry n (n = 1 for the first retry) is `initial × factor^(n-1)`, at most `cap`,
// then spread by ±`jitter` (a fraction of the wait; 0 keeps the schedule exact):
//
//   constexpr whizbang::Backoff reconnect{.initial = 100ms, .factor = 2, .cap = 5s};
//   reconnect.delay(1);  // 100 ms
//   reconnect.delay(4);  // 800 ms
//   reconnect.delay(9);  // 5 s (capped)
//
// A loop that retries until something works keeps a BackoffSequence: next() for each failure,
// reset() after a success.
#pragma once

#include <chrono>
#include <cstdint>

namespace whizbang {

struct Backoff {
  using Duration = std::chrono::microseconds;

  Duration initial{std::chrono::milliseconds(100)};
  // Each retry waits this many times the one before (1: a constant wait).
  double factor = 2.0;
  Duration cap{std::chrono::seconds(5)};
  // 0.2: each wait is drawn uniformly from [0.8 × wait, 1.2 × wait], so instances that failed
  // together do not retry together. Only delay_with_jitter() applies it.
  double jitter = 0.0;

  // The wait before retry `retry` (1-based; 0 or less: no wait), without jitter.
  constexpr Duration delay(int retry) const {
    if (retry <= 0) return Duration::zero();
    double wait = static_cast<double>(initial.count());
    const double cap_count = static_cast<double>(cap.count());
    for (int n = 1; n < retry && wait < cap_count; ++n) wait *= factor;
    return wait >= cap_count ? cap : Duration(static_cast<std::int64_t>(wait));
  }

  // delay(retry) spread by the jitter, with a thread-local random source.
  Duration delay_with_jitter(int retry) const;

  friend constexpr bool operator==(const Backoff&, const Backoff&) = default;
};

// The waits of one retry loop: next() returns the wait before the next retry and counts it;
// reset() after a success starts over at `initial`.
class BackoffSequence {
 public:
  constexpr explicit BackoffSequence(Backoff backoff) : backoff_(backoff) {}

  Backoff::Duration next() { return backoff_.delay_with_jitter(++retries_); }
  constexpr void reset() { retries_ = 0; }
  constexpr int retries() const { return retries_; }
  constexpr const Backoff& backoff() const { return backoff_; }

 private:
  Backoff backoff_;
  int retries_ = 0;
};

}  // namespace whizbang
