// FastClock must agree with system_clock, before and after it switches to the TSC, and measure
// durations correctly: invocation records carry both.
#include "whizbang/internal/fast_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace whizbang::internal {
namespace {

using namespace std::chrono_literals;

std::chrono::nanoseconds distance(FastClock::time_point a, FastClock::time_point b) {
  return a > b ? a - b : b - a;
}

TEST(FastClockTests, AgreesWithSystemClock_BeforeAndAfterCalibration) {
  const auto deadline = std::chrono::steady_clock::now() + 120ms;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto before = std::chrono::system_clock::now();
    const auto fast = FastClock::now();
    const auto after = std::chrono::system_clock::now();
    // Within the reads' window, give or take the TSC's drift over one 50 ms anchor period.
    EXPECT_LE(distance(fast, before), (after - before) + 1ms);
    std::this_thread::sleep_for(1ms);
  }
}

TEST(FastClockTests, MeasuresASleep) {
  std::this_thread::sleep_for(25ms);  // past calibration
  const auto started = FastClock::now();
  std::this_thread::sleep_for(10ms);
  const auto elapsed = FastClock::now() - started;
  EXPECT_GE(elapsed, 9ms);
  EXPECT_LT(elapsed, 2s);
}

TEST(FastClockTests, EachThreadAnchorsOnItsOwn) {
  std::this_thread::sleep_for(25ms);
  FastClock::time_point seen{};
  std::thread other([&] { seen = FastClock::now(); });
  other.join();
  EXPECT_LE(distance(seen, std::chrono::system_clock::now()), 100ms);
}

}  // namespace
}  // namespace whizbang::internal
