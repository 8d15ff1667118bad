#include "whizbang/workers/worker_loop.hpp"

#include <string>
#include <utility>

#include "fmt/format.h"
#include "whizbang/observability/log_rate_limiter.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {

void WorkerLoop::start(std::function<absl::Status()> cycle, std::string name,
                       std::chrono::milliseconds poll_interval,
                       std::shared_ptr<spdlog::logger> logger) {
  if (running_.exchange(true)) return;
  thread_ = std::thread([this, cycle = std::move(cycle), name = std::move(name), poll_interval,
                         logger = std::move(logger)] {
    // A store that is down fails every cycle alike: one line, then one per 10 s (and a line when
    // it is back), not one per poll (log_rate_limiter.hpp).
    LogRateLimiter failures;
    while (running_.load()) {
      const absl::Status status = status_of_call(name, cycle);
      if (!status.ok()) {
        const std::string message(status.message());
        if (const auto logged = failures.occurred(message)) {
          log(logger, spdlog::level::warn, log_events::kWorkerCycleFailed, "{} cycle failed: {}{}",
              name, message, logged->suffix());
        }
      } else if (const auto recovery = failures.recovered()) {
        log(logger, spdlog::level::info, log_events::kWorkerCycleRecovered,
            "{} cycles succeed again after {} failed cycles in {}{}", name, recovery->occurrences,
            LogRateLimiter::seconds(recovery->lasted),
            recovery->never_logged > 0 ? fmt::format(" ({} not logged)", recovery->never_logged)
                                       : std::string());
      }
      {
        std::lock_guard lock(cycles_mutex_);
        ++cycles_;
        if (status.ok()) {
          failing_.reset();
        } else {
          if (!failing_) failing_ = Failing{std::chrono::steady_clock::now(), {}};
          failing_->last_error = std::string(status.message());
        }
      }
      cycle_done_.notify_all();
      if (!running_.load()) break;
      wake_.wait_for(poll_interval);
    }
  });
}

}  // namespace whizbang
