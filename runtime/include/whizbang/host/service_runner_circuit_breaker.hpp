// Circuit breakers as text, for a process's flags and configuration
// (docs/guide/14-running-services.md, `--circuit-breaker`; docs/guide/11-failures.md, "Circuit
// breakers"):
//
//   RULE=SPEC
//   RULE: default | receptors | destinations | receptor:HANDLER | destination:ADDRESS
//   SPEC: off | KEY=VALUE[,KEY=VALUE...] with keys failures (K, at least 1), window, cool-down,
//         max-cool-down (durations: 500ms, 30s, 5m, 1h) and factor (the cool-down's growth
//         after a failed trial, 1 to 100)
//
//   default=failures=5,window=1m,cool-down=30s,max-cool-down=5m
//   receptor:ChargeCardHandler=failures=3,window=30s,cool-down=10s
//   destination:audit=off
//
// Keys not given keep CircuitBreakerOptions' defaults (5 failures in 60 s, 30 s doubling to
// 5 min). No rule: no breakers.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/workers/circuit_breaker.hpp"

namespace whizbang {

// Adds the rule `spec` to `rules`; InvalidArgument says which part is wrong.
absl::Status add_circuit_breaker_spec(std::string_view spec, CircuitBreakerRules& rules);

// Every spec of `specs` into one CircuitBreakerRules, in order (a later rule for the same
// receptor or destination wins).
absl::StatusOr<CircuitBreakerRules> parse_circuit_breaker_specs(std::span<const std::string> specs);

}  // namespace whizbang
