// FastClock: wall-clock time points at a fraction of the cost of a clock_gettime call, for the
// timestamps and durations of receptor invocation records (taken twice per invocation).
//
// On x86-64 with an invariant TSC it reads the time-stamp counter and converts ticks with a rate
// calibrated against steady_clock; each thread re-anchors on system_clock every 50 ms, so it
// follows NTP adjustments and never drifts further than the TSC does in that window. During the
// first 20 ms of the process (calibration), and on other CPUs, it is system_clock.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace whizbang::internal {

class FastClock {
 public:
  using time_point = std::chrono::system_clock::time_point;

  static time_point now() {
#if defined(__x86_64__)
    const double rate = nanos_per_tick_.load(std::memory_order_relaxed);
    if (rate != 0) {
      const std::uint64_t since_anchor = __rdtsc() - anchor_.ticks;
      // Unsigned: a thread moved to a core whose counter reads lower wraps and re-anchors too.
      if (since_anchor <= anchor_.reanchor_after_ticks) {
        return anchor_.wall +
               std::chrono::duration_cast<time_point::duration>(std::chrono::nanoseconds(
                   static_cast<std::int64_t>(static_cast<double>(since_anchor) * rate)));
      }
    }
#endif
    return slow_now();
  }

  // True once now() reads the TSC instead of calling system_clock.
  static bool uses_tsc();

  // An invocation's duration from two readings: whole microseconds, never negative (a re-anchor
  // between the readings can step the clock back).
  static std::chrono::microseconds elapsed(time_point started, time_point completed) {
    return std::max(std::chrono::microseconds(0),
                    std::chrono::duration_cast<std::chrono::microseconds>(completed - started));
  }

 private:
  // One thread's link between its TSC readings and system_clock.
  struct Anchor {
    std::uint64_t ticks = 0;
    time_point wall{};
    std::uint64_t reanchor_after_ticks = 0;  // 0: no anchor yet
  };

  // Calibrates, re-anchors the calling thread, or reads system_clock.
  static time_point slow_now();

  static std::atomic<double> nanos_per_tick_;  // 0 while calibrating or without a usable TSC
  // Constant-initialized and initial-exec: reading it is one %fs-relative load, no TLS call.
  __attribute__((tls_model("initial-exec"))) static constinit thread_local Anchor anchor_;
};

}  // namespace whizbang::internal
