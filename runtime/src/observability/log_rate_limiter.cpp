#include "whizbang/observability/log_rate_limiter.hpp"

#include <algorithm>
#include <utility>

#include "fmt/format.h"

namespace whizbang {

LogRateLimiter::LogRateLimiter(Duration interval, Clock clock)
    : interval_(interval),
      clock_(clock ? std::move(clock) : Clock(std::chrono::steady_clock::now)) {}

std::string LogRateLimiter::Logged::suffix() const {
  if (held_back == 0) return "";
  return fmt::format(" (and {} more like it in the last {})", held_back, seconds(since_previous));
}

std::optional<LogRateLimiter::Logged> LogRateLimiter::repeat(
    Run& run, std::chrono::steady_clock::time_point now) {
  if (now - run.last_logged < interval_) {
    ++run.held_back;
    return std::nullopt;
  }
  const Logged logged{run.held_back, now - run.last_logged};
  run.last_logged = now;
  run.held_back = 0;
  return logged;
}

std::optional<LogRateLimiter::Logged> LogRateLimiter::occurred(std::string_view message) {
  const auto now = clock_();
  if (occurrences_++ == 0) first_ = now;
  const auto known = std::find_if(runs_.begin(), runs_.end(),
                                  [&](const Run& run) { return run.message == message; });
  if (known != runs_.end()) return repeat(*known, now);
  if (runs_.size() < kMaxMessages) {
    runs_.push_back({std::string(message), now, 0});
    return Logged{};
  }
  if (!shared_) {
    shared_ = Run{"", now, 0};
    return Logged{};
  }
  return repeat(*shared_, now);
}

std::optional<LogRateLimiter::Recovery> LogRateLimiter::recovered() {
  if (occurrences_ == 0) return std::nullopt;
  Recovery recovery{occurrences_, 0, clock_() - first_};
  for (const Run& run : runs_) recovery.never_logged += run.held_back;
  if (shared_) recovery.never_logged += shared_->held_back;
  runs_.clear();
  shared_.reset();
  occurrences_ = 0;
  return recovery;
}

std::string LogRateLimiter::seconds(Duration duration) {
  const double value = std::chrono::duration<double>(duration).count();
  return value >= 10 ? fmt::format("{:.0f} s", value) : fmt::format("{:.1f} s", value);
}

}  // namespace whizbang
