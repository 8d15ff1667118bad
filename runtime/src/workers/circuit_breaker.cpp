// The circuit breakers' state machine (whizbang/workers/circuit_breaker.hpp): closed, open,
// half-open; its log lines and its gauge.
#include "whizbang/workers/circuit_breaker.hpp"

#include <algorithm>
#include <deque>
#include <utility>

#include "whizbang/observability/logging.hpp"

namespace whizbang {

std::string_view to_string(CircuitBreakerKind kind) {
  return kind == CircuitBreakerKind::Receptor ? "receptor" : "destination";
}

std::string_view to_string(CircuitState state) {
  switch (state) {
    case CircuitState::Open:
      return "open";
    case CircuitState::HalfOpen:
      return "half-open";
    case CircuitState::Closed:
      break;
  }
  return "closed";
}

// ---- rules ------------------------------------------------------------------------------------

CircuitBreakerRules& CircuitBreakerRules::for_receptor(std::string handler_name,
                                                       CircuitBreakerOptions options) {
  by_name_[0].insert_or_assign(std::move(handler_name), options);
  return *this;
}
CircuitBreakerRules& CircuitBreakerRules::for_destination(std::string address,
                                                          CircuitBreakerOptions options) {
  by_name_[1].insert_or_assign(std::move(address), options);
  return *this;
}
CircuitBreakerRules& CircuitBreakerRules::all_receptors(CircuitBreakerOptions options) {
  by_kind_[0] = options;
  return *this;
}
CircuitBreakerRules& CircuitBreakerRules::all_destinations(CircuitBreakerOptions options) {
  by_kind_[1] = options;
  return *this;
}
CircuitBreakerRules& CircuitBreakerRules::otherwise(CircuitBreakerOptions options) {
  default_ = options;
  return *this;
}

std::optional<CircuitBreakerOptions> CircuitBreakerRules::options_for(CircuitBreakerKind kind,
                                                                      std::string_view name) const {
  const int k = static_cast<int>(kind);
  std::optional<CircuitBreakerOptions> found;
  if (auto own = by_name_[k].find(name); own != by_name_[k].end()) {
    found = own->second;
  } else if (by_kind_[k]) {
    found = by_kind_[k];
  } else {
    found = default_;
  }
  if (found && !found->enabled) return std::nullopt;
  if (found) found->failure_threshold = std::max(found->failure_threshold, 1);
  return found;
}

bool CircuitBreakerRules::any(CircuitBreakerKind kind) const {
  const int k = static_cast<int>(kind);
  const auto on = [](const std::optional<CircuitBreakerOptions>& o) { return o && o->enabled; };
  return on(default_) || on(by_kind_[k]) ||
         std::any_of(by_name_[k].begin(), by_name_[k].end(),
                     [](const auto& rule) { return rule.second.enabled; });
}

// ---- breakers ---------------------------------------------------------------------------------

struct CircuitBreakers::Breaker {
  CircuitBreakerOptions options;
  CircuitState state = CircuitState::Closed;
  std::deque<TimePoint> failures;  // closed: the retryable failures within the window
  int failures_when_opened = 0;
  int openings_in_a_row = 0;  // since it last closed: how far the cool-down has grown
  TimePoint open_until{};
  bool trial_running = false;
  TimePoint trial_started{};
  std::uint64_t times_opened = 0;
};

CircuitBreakers::CircuitBreakers(CircuitBreakerKind kind, CircuitBreakerRules rules,
                                 Observers observers)
    : kind_(kind), rules_(std::move(rules)), observers_(std::move(observers)) {}

CircuitBreakers::~CircuitBreakers() = default;

TimePoint CircuitBreakers::now() const { return observers_.now ? observers_.now() : Clock::now(); }

CircuitBreakers::Breaker* CircuitBreakers::find(std::string_view name) {
  if (auto found = breakers_.find(name); found != breakers_.end()) return found->second.get();
  std::optional<CircuitBreakerOptions> options = rules_.options_for(kind_, name);
  if (!options || breakers_.size() >= kMaxBreakers) return nullptr;
  auto breaker = std::make_unique<Breaker>();
  breaker->options = *options;
  Breaker* made = breaker.get();
  const auto [at, inserted] = breakers_.emplace(std::string(name), std::move(breaker));
  if (observers_.metrics) {
    const MetricTag tags[] = {{"kind", to_string(kind_)}, {"name", at->first}};
    observers_.metrics->set(kMeter, kStateGauge, 0, tags);
  }
  return made;
}

void CircuitBreakers::change(const std::string& name, Breaker& breaker, CircuitState to,
                             TimePoint now) {
  breaker.state = to;
  if (observers_.metrics) {
    const MetricTag tags[] = {{"kind", to_string(kind_)}, {"name", name}};
    observers_.metrics->set(kMeter, kStateGauge, static_cast<std::int64_t>(to), tags);
  }
  if (to == CircuitState::Open) {
    const auto cool_down =
        std::chrono::duration_cast<std::chrono::milliseconds>(breaker.open_until - now);
    log(observers_.logger, spdlog::level::warn, log_events::kCircuitBreakerOpened,
        "circuit breaker of {} '{}' opened after {} failures: its work waits {} ms, no attempts "
        "counted",
        to_string(kind_), name, breaker.failures_when_opened, cool_down.count());
  } else if (to == CircuitState::HalfOpen) {
    log(observers_.logger, spdlog::level::info, log_events::kCircuitBreakerHalfOpen,
        "circuit breaker of {} '{}' is half-open: one trial", to_string(kind_), name);
  } else {
    log(observers_.logger, spdlog::level::info, log_events::kCircuitBreakerClosed,
        "circuit breaker of {} '{}' closed: its trial succeeded", to_string(kind_), name);
  }
}

void CircuitBreakers::open(const std::string& name, Breaker& breaker, TimePoint now) {
  breaker.failures_when_opened = breaker.state == CircuitState::HalfOpen
                                     ? breaker.failures_when_opened + 1
                                     : static_cast<int>(breaker.failures.size());
  breaker.failures.clear();
  ++breaker.openings_in_a_row;
  ++breaker.times_opened;
  breaker.trial_running = false;
  breaker.open_until = now + std::chrono::duration_cast<TimePoint::duration>(
                                 breaker.options.cool_down.delay(breaker.openings_in_a_row));
  if (observers_.metrics) {
    const MetricTag tags[] = {{"kind", to_string(kind_)}, {"name", name}};
    observers_.metrics->add(kMeter, kOpenedCounter, 1, tags);
  }
  change(name, breaker, CircuitState::Open, now);
}

CircuitBreakers::Admission CircuitBreakers::admit(std::string_view name) {
  std::lock_guard lock(mutex_);
  Breaker* breaker = find(name);
  if (breaker == nullptr || breaker->state == CircuitState::Closed) return {};
  const TimePoint at = now();
  const std::string& key = breakers_.find(name)->first;
  if (breaker->state == CircuitState::Open) {
    if (at < breaker->open_until) {
      return {false, false,
              std::chrono::duration_cast<std::chrono::microseconds>(breaker->open_until - at)};
    }
    change(key, *breaker, CircuitState::HalfOpen, at);
  }
  // Half-open: one trial at a time; one that never reported back (its worker stopped) is
  // replaced after a cool-down's initial wait.
  const auto trial_wait = std::min<std::chrono::microseconds>(
      std::chrono::duration_cast<std::chrono::microseconds>(kTrialWait),
      breaker->options.cool_down.initial);
  if (breaker->trial_running && at - breaker->trial_started < breaker->options.cool_down.initial) {
    return {false, false, trial_wait};
  }
  breaker->trial_running = true;
  breaker->trial_started = at;
  return {true, true, std::chrono::microseconds::zero()};
}

void CircuitBreakers::succeeded(std::string_view name) {
  std::lock_guard lock(mutex_);
  auto found = breakers_.find(name);
  if (found == breakers_.end()) return;
  Breaker& breaker = *found->second;
  if (breaker.state != CircuitState::HalfOpen) return;
  breaker.trial_running = false;
  breaker.openings_in_a_row = 0;
  breaker.failures.clear();
  change(found->first, breaker, CircuitState::Closed, now());
}

void CircuitBreakers::failed(std::string_view name) {
  std::lock_guard lock(mutex_);
  Breaker* breaker = find(name);
  if (breaker == nullptr) return;
  const std::string& key = breakers_.find(name)->first;
  const TimePoint at = now();
  if (breaker->state == CircuitState::HalfOpen) {
    open(key, *breaker, at);  // the trial failed
    return;
  }
  if (breaker->state == CircuitState::Open) return;  // an attempt admitted before it opened
  breaker->failures.push_back(at);
  while (!breaker->failures.empty() && at - breaker->failures.front() > breaker->options.window) {
    breaker->failures.pop_front();
  }
  if (static_cast<int>(breaker->failures.size()) >= breaker->options.failure_threshold) {
    open(key, *breaker, at);
  }
}

void CircuitBreakers::abandoned(std::string_view name) {
  std::lock_guard lock(mutex_);
  if (auto found = breakers_.find(name); found != breakers_.end()) {
    found->second->trial_running = false;
  }
}

std::vector<CircuitBreakerSnapshot> CircuitBreakers::snapshot() const {
  std::lock_guard lock(mutex_);
  const TimePoint at = now();
  std::vector<CircuitBreakerSnapshot> breakers;
  breakers.reserve(breakers_.size());
  for (const auto& [name, breaker] : breakers_) {
    CircuitBreakerSnapshot& shown = breakers.emplace_back();
    shown.kind = kind_;
    shown.name = name;
    shown.state = breaker->state;
    shown.times_opened = breaker->times_opened;
    if (breaker->state == CircuitState::Closed) {
      shown.recent_failures = static_cast<int>(
          std::count_if(breaker->failures.begin(), breaker->failures.end(),
                        [&](TimePoint t) { return at - t <= breaker->options.window; }));
    } else {
      shown.recent_failures = breaker->failures_when_opened;
    }
    if (breaker->state == CircuitState::Open) shown.open_until = breaker->open_until;
  }
  return breakers;
}

}  // namespace whizbang
