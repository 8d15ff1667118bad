// LogRateLimiter: keeps a warning that repeats from flooding the log. While a database is down,
// every worker cycle fails the same way: five workers polling every 200 ms wrote hundreds of
// identical lines in ten seconds, and the line that said what went wrong first scrolled away.
//
// The first occurrence of a message is logged. Repeats of it are held back and counted; at most
// one per interval (10 s by default) is logged, saying how many were held back since the last
// ("(and 37 more like it in the last 10 s)"). A different message is new information and is
// logged at once; past kMaxMessages different ones, the rest share one budget, so a message that
// differs every time (an id in it) is limited too. When the condition ends, recovered() answers
// once with how often it occurred, for how long, and how many occurrences were never logged: the
// recovery line. The next occurrence after that is logged at once again.
//
// The clock is injected so tests drive time without sleeping. Not thread-safe: one limiter per
// source, used on that source's thread (WorkerLoop keeps one on its thread for its failed
// cycles, docs/guide/09-diagnostics.md).
//
//   LogRateLimiter failures;
//   if (const auto logged = failures.occurred(error)) {
//     log(logger, spdlog::level::warn, kWorkerCycleFailed, "cycle failed: {}{}", error,
//         logged->suffix());
//   }
//   ...
//   if (const auto recovery = failures.recovered()) log(... "succeeds again after" ...);
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace whizbang {

class LogRateLimiter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Duration = std::chrono::steady_clock::duration;
  static constexpr std::chrono::seconds kDefaultInterval{10};
  // Different messages tracked one by one; any more share one budget.
  static constexpr std::size_t kMaxMessages = 8;

  // `clock` null: std::chrono::steady_clock::now.
  explicit LogRateLimiter(Duration interval = kDefaultInterval, Clock clock = nullptr);

  // An occurrence to log now.
  struct Logged {
    std::uint64_t held_back = 0;  // repeats not logged since the previous line of this message
    Duration since_previous{};    // since that line (zero for a first occurrence)
    // "" for a first occurrence, else " (and 37 more like it in the last 10 s)".
    std::string suffix() const;
  };
  // One occurrence of `message`: what to log, or nullopt when it is held back.
  std::optional<Logged> occurred(std::string_view message);

  // The end of the condition.
  struct Recovery {
    std::uint64_t occurrences = 0;  // since the first one
    std::uint64_t never_logged = 0;
    Duration lasted{};  // from the first occurrence to now
  };
  // Once after occurrences; nullopt when nothing occurred since the last call.
  std::optional<Recovery> recovered();

  // "12 s" from 10 s on, "1.5 s" below: how long, for a log line.
  static std::string seconds(Duration duration);

 private:
  struct Run {
    std::string message;  // empty for the shared budget past kMaxMessages
    std::chrono::steady_clock::time_point last_logged;
    std::uint64_t held_back = 0;
  };
  std::optional<Logged> repeat(Run& run, std::chrono::steady_clock::time_point now);

  Duration interval_;
  Clock clock_;
  std::vector<Run> runs_;
  std::optional<Run> shared_;
  std::chrono::steady_clock::time_point first_{};
  std::uint64_t occurrences_ = 0;
};

}  // namespace whizbang
