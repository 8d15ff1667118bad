#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "service_runner_durations.hpp"
#include "whizbang/host/service_runner_circuit_breaker.hpp"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang {
namespace {

absl::Status invalid(std::string_view spec, std::string_view why) {
  std::string message = "--circuit-breaker '";
  message.append(spec).append("': ").append(why);
  return absl::InvalidArgumentError(message);
}

absl::StatusOr<CircuitBreakerOptions> options_of(std::string_view spec, std::string_view text) {
  if (text == "off") return CircuitBreakerOptions::off();
  if (text.empty()) return invalid(spec, "no SPEC after '=' (off, or KEY=VALUE,...)");
  CircuitBreakerOptions options;
  for (absl::string_view pair : absl::StrSplit(internal::absl_view(text), ',')) {
    const std::string_view item(pair.data(), pair.size());
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      return invalid(spec, "'" + std::string(item) + "' is not KEY=VALUE");
    }
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = item.substr(equals + 1);
    bool ok = true;
    if (key == "failures") {
      int count = 0;
      ok = absl::SimpleAtoi(internal::absl_view(value), &count) && count >= 1;
      options.failure_threshold = count;
    } else if (key == "window" || key == "cool-down" || key == "max-cool-down") {
      const std::optional<std::chrono::microseconds> duration =
          runner_durations::duration_of(value);
      ok = duration.has_value() && duration->count() > 0;
      if (!ok) {
      } else if (key == "window") {
        options.window = std::chrono::duration_cast<std::chrono::milliseconds>(*duration);
        ok = options.window.count() > 0;
      } else {
        (key == "cool-down" ? options.cool_down.initial : options.cool_down.cap) = *duration;
      }
    } else if (key == "factor") {
      double factor = 0;
      ok = absl::SimpleAtod(internal::absl_view(value), &factor) && factor >= 1 && factor <= 100;
      options.cool_down.factor = factor;
    } else {
      return invalid(spec, "unknown key '" + std::string(key) +
                               "' (failures, window, cool-down, max-cool-down, factor)");
    }
    if (!ok) {
      return invalid(spec, "'" + std::string(value) + "' is not a valid " + std::string(key));
    }
  }
  // A cool-down longer than the default cap raises the cap with it, unless one was given.
  if (text.find("max-cool-down=") == std::string_view::npos &&
      options.cool_down.cap < options.cool_down.initial) {
    options.cool_down.cap = options.cool_down.initial;
  }
  if (options.cool_down.cap < options.cool_down.initial) {
    return invalid(spec, "max-cool-down is below cool-down");
  }
  return options;
}

}  // namespace

absl::Status add_circuit_breaker_spec(std::string_view spec, CircuitBreakerRules& rules) {
  // The rule ends at the first '=' (handler names and addresses have none).
  const std::size_t equals = spec.find('=');
  if (equals == std::string_view::npos) return invalid(spec, "not RULE=SPEC");
  const std::string_view rule = spec.substr(0, equals);
  absl::StatusOr<CircuitBreakerOptions> options = options_of(spec, spec.substr(equals + 1));
  if (!options.ok()) return options.status();
  constexpr std::string_view kReceptor = "receptor:";
  constexpr std::string_view kDestination = "destination:";
  if (rule == "default") {
    rules.otherwise(*options);
  } else if (rule == "receptors") {
    rules.all_receptors(*options);
  } else if (rule == "destinations") {
    rules.all_destinations(*options);
  } else if (rule.starts_with(kReceptor) && rule.size() > kReceptor.size()) {
    rules.for_receptor(std::string(rule.substr(kReceptor.size())), *options);
  } else if (rule.starts_with(kDestination) && rule.size() > kDestination.size()) {
    rules.for_destination(std::string(rule.substr(kDestination.size())), *options);
  } else {
    return invalid(spec,
                   "the rule is default, receptors, destinations, receptor:HANDLER or "
                   "destination:ADDRESS");
  }
  return absl::OkStatus();
}

absl::StatusOr<CircuitBreakerRules> parse_circuit_breaker_specs(
    std::span<const std::string> specs) {
  CircuitBreakerRules rules;
  for (const std::string& spec : specs) {
    if (absl::Status added = add_circuit_breaker_spec(spec, rules); !added.ok()) return added;
  }
  return rules;
}

}  // namespace whizbang
