#include "whizbang/internal/fast_clock.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace whizbang::internal {
namespace {

using std::chrono::nanoseconds;
using std::chrono::steady_clock;
using std::chrono::system_clock;

constexpr std::int64_t kCalibrationNanos = 20'000'000;  // 20 ms of ticks against steady_clock
constexpr std::int64_t kReanchorNanos = 50'000'000;     // per-thread resync with system_clock

#if defined(__x86_64__)
std::int64_t steady_nanos() {
  return std::chrono::duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

bool has_invariant_tsc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;
}

// Where the process-wide tick rate is measured from.
struct CalibrationStart {
  bool usable = has_invariant_tsc();
  std::uint64_t ticks = __rdtsc();
  std::int64_t nanos = steady_nanos();
};

const CalibrationStart& calibration_start() {
  static const CalibrationStart start;
  return start;
}

// Nanoseconds per tick once kCalibrationNanos have passed since the first call; 0 before.
double measure_rate() {
  const CalibrationStart& start = calibration_start();
  if (!start.usable) return 0;
  const std::uint64_t ticks = __rdtsc();
  const std::int64_t elapsed = steady_nanos() - start.nanos;
  if (elapsed < kCalibrationNanos || ticks <= start.ticks) return 0;
  return static_cast<double>(elapsed) / static_cast<double>(ticks - start.ticks);
}
#endif

}  // namespace

std::atomic<double> FastClock::nanos_per_tick_{0};
constinit thread_local FastClock::Anchor FastClock::anchor_;

FastClock::time_point FastClock::slow_now() {
#if defined(__x86_64__)
  double rate = nanos_per_tick_.load(std::memory_order_relaxed);
  if (rate == 0) {
    rate = measure_rate();
    if (rate == 0) return system_clock::now();
    nanos_per_tick_.store(rate, std::memory_order_relaxed);
  }
  anchor_.wall = system_clock::now();
  anchor_.ticks = __rdtsc();
  anchor_.reanchor_after_ticks =
      static_cast<std::uint64_t>(static_cast<double>(kReanchorNanos) / rate);
  return anchor_.wall;
#else
  return system_clock::now();
#endif
}

bool FastClock::uses_tsc() {
  now();  // calibrates when due
  return nanos_per_tick_.load(std::memory_order_relaxed) != 0;
}

}  // namespace whizbang::internal
