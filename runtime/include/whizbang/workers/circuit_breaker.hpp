// Circuit breakers (docs/guide/11-failures.md, "Circuit breakers"): while a receptor's dependency
// (or a destination) is down, its work waits instead of burning every row's attempts.
//
// One breaker per receptor (the inbox row's handler name) and per destination (an outbox row's
// transport address). Closed, it counts the retryable failures of its work; `failure_threshold`
// of them within `window` open it. Open, its work is not attempted: the worker hands each claimed
// row back to the store for when the cool-down ends (WorkStore::defer_work: no attempt counted,
// the row's stream waits behind it). Then it is half-open: one trial handling (or one publish of
// one row); its success closes the breaker, its failure opens it again for a longer cool-down
// (`cool_down` grows by its factor, up to its cap). Permanent failures never count: the
// dependency answered.
//
//   whizbang::CircuitBreakerOptions payments;
//   payments.failure_threshold = 5;                     // 5 failures ...
//   payments.window = std::chrono::seconds(30);         // ... within 30 s open it
//   payments.cool_down = {.initial = std::chrono::seconds(10), .factor = 2,
//                         .cap = std::chrono::minutes(5)};
//   host_options.circuit_breakers.for_receptor("ChargeCardHandler", payments)
//       .for_destination("shop.billing", payments);   // or .otherwise(payments) for all
//   ...
//   for (const auto& breaker : host->circuit_breakers()) { ... }   // kind, name, state, ...
//
// Nothing configured: no breaker at all (every failure only follows its retry policy).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spdlog/logger.h"
#include "whizbang/message/envelope.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/retry/backoff.hpp"

namespace whizbang {

enum class CircuitBreakerKind : std::uint8_t { Receptor = 0, Destination = 1 };
// The values are the /metrics gauge's (whizbang_circuit_breaker_state).
enum class CircuitState : std::uint8_t { Closed = 0, Open = 1, HalfOpen = 2 };

std::string_view to_string(CircuitBreakerKind kind);  // "receptor", "destination"
std::string_view to_string(CircuitState state);       // "closed", "open", "half-open"

struct CircuitBreakerOptions {
  // False: no breaker for what this applies to (e.g. one receptor left out of a default).
  bool enabled = true;
  // Opens at this many retryable failures within `window` (at least 1).
  int failure_threshold = 5;
  std::chrono::milliseconds window{std::chrono::seconds(60)};
  // How long it stays open: `initial` the first time, times `factor` after each failed trial, at
  // most `cap` (jitter is not applied).
  Backoff cool_down{.initial = std::chrono::seconds(30),
                    .factor = 2,
                    .cap = std::chrono::minutes(5),
                    .jitter = 0};

  static CircuitBreakerOptions off() {
    CircuitBreakerOptions options;
    options.enabled = false;
    return options;
  }
  friend bool operator==(const CircuitBreakerOptions&, const CircuitBreakerOptions&) = default;
};

// Which options each receptor and destination gets: its own, else its kind's default, else the
// default; none of them: no breaker.
class CircuitBreakerRules {
 public:
  CircuitBreakerRules& for_receptor(std::string handler_name, CircuitBreakerOptions options);
  CircuitBreakerRules& for_destination(std::string address, CircuitBreakerOptions options);
  // Every receptor (or every destination) without a rule of its own.
  CircuitBreakerRules& all_receptors(CircuitBreakerOptions options);
  CircuitBreakerRules& all_destinations(CircuitBreakerOptions options);
  // Every receptor and destination without a rule above.
  CircuitBreakerRules& otherwise(CircuitBreakerOptions options);

  // The options of `name`'s breaker; nullopt: it has none.
  std::optional<CircuitBreakerOptions> options_for(CircuitBreakerKind kind,
                                                   std::string_view name) const;
  // False when no rule could enable a breaker of `kind`.
  bool any(CircuitBreakerKind kind) const;

 private:
  std::map<std::string, CircuitBreakerOptions, std::less<>> by_name_[2];
  std::optional<CircuitBreakerOptions> by_kind_[2];
  std::optional<CircuitBreakerOptions> default_;
};

// What one breaker is doing (ServiceHost::circuit_breakers(), for an operator's view).
struct CircuitBreakerSnapshot {
  CircuitBreakerKind kind = CircuitBreakerKind::Receptor;
  std::string name;
  CircuitState state = CircuitState::Closed;
  // Retryable failures within the window (closed), or those that opened it.
  int recent_failures = 0;
  // Open: when the trial may start. Unset otherwise.
  std::optional<TimePoint> open_until;
  // Times it opened since the process started.
  std::uint64_t times_opened = 0;
};

// The breakers of one kind of work (the inbox worker's receptors, the drain worker's
// destinations). Thread-safe. Each state change is logged (EventIds 145-147) and set on the gauge
// `whizbang.circuit_breaker.state{kind,name}` (0 closed, 1 open, 2 half-open); each opening adds
// one to `whizbang.circuit_breaker.opened{kind,name}` (meter Whizbang.CircuitBreaker).
class CircuitBreakers {
 public:
  struct Observers {
    std::shared_ptr<Metrics> metrics;
    std::shared_ptr<spdlog::logger> logger;
    // The clock; unset: the system clock. Tests pass the store's manual clock.
    std::function<TimePoint()> now;
  };
  CircuitBreakers(CircuitBreakerKind kind, CircuitBreakerRules rules, Observers observers);
  ~CircuitBreakers();
  CircuitBreakers(const CircuitBreakers&) = delete;
  CircuitBreakers& operator=(const CircuitBreakers&) = delete;

  // Whether `name`'s work may be attempted now. `trial`: the half-open breaker's one trial, whose
  // outcome must be reported (succeeded, failed or abandoned). Otherwise `defer` is how long the
  // work waits (the rest of the cool-down, or a short wait while a trial runs).
  struct Admission {
    bool attempt = true;
    bool trial = false;
    std::chrono::microseconds defer{0};
  };
  Admission admit(std::string_view name);
  // The attempt succeeded: a half-open breaker closes.
  void succeeded(std::string_view name);
  // The attempt failed and may be retried (not a permanent failure).
  void failed(std::string_view name);
  // A trial that ended with no verdict (a lease lost, a permanent failure): the next attempt is
  // the trial.
  void abandoned(std::string_view name);

  CircuitBreakerKind kind() const { return kind_; }
  // Every breaker that has seen work, by name.
  std::vector<CircuitBreakerSnapshot> snapshot() const;

  // At most this many breakers are kept; work of further names is attempted unguarded.
  static constexpr std::size_t kMaxBreakers = 1000;
  // While a trial runs, the breaker's other work waits this long (at most the cool-down).
  static constexpr std::chrono::seconds kTrialWait{1};
  static constexpr std::string_view kMeter = "Whizbang.CircuitBreaker";
  static constexpr std::string_view kStateGauge = "whizbang.circuit_breaker.state";
  static constexpr std::string_view kOpenedCounter = "whizbang.circuit_breaker.opened";

 private:
  struct Breaker;
  Breaker* find(std::string_view name);
  void change(const std::string& name, Breaker& breaker, CircuitState to, TimePoint now);
  void open(const std::string& name, Breaker& breaker, TimePoint now);
  TimePoint now() const;

  CircuitBreakerKind kind_;
  CircuitBreakerRules rules_;
  Observers observers_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Breaker>, std::less<>> breakers_;
};

}  // namespace whizbang
