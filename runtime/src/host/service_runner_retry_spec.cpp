#include "whizbang/host/service_runner_retry.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "service_runner_durations.hpp"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang {
namespace {

absl::Status invalid(std::string_view spec, std::string_view why) {
  return absl::InvalidArgumentError("--retry '" + std::string(spec) + "': " + std::string(why));
}

std::optional<FailureReason> reason_named(std::string_view name) {
  constexpr std::pair<std::string_view, FailureReason> kReasons[] = {
      {"TransportNotReady", FailureReason::TransportNotReady},
      {"TransportException", FailureReason::TransportException},
      {"SerializationError", FailureReason::SerializationError},
      {"ValidationError", FailureReason::ValidationError},
      {"EventStorageFailure", FailureReason::EventStorageFailure},
      {"Unknown", FailureReason::Unknown},
  };
  for (const auto& [known, reason] : kReasons) {
    if (known == name) return reason;
  }
  return std::nullopt;
}

std::optional<absl::StatusCode> code_named(std::string_view name) {
  for (int code = 1; code <= 16; ++code) {
    const auto status_code = static_cast<absl::StatusCode>(code);
    if (absl::StatusCodeToString(status_code) == name) return status_code;
  }
  return std::nullopt;
}

absl::StatusOr<RetryPolicy> policy_of(std::string_view spec, std::string_view text) {
  if (text == "dead-letter") return RetryPolicy::dead_letter_at_once();
  RetryPolicy policy;
  for (absl::string_view pair : absl::StrSplit(internal::absl_view(text), ',')) {
    const std::string_view item(pair.data(), pair.size());
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos)
      return invalid(spec, "'" + std::string(item) + "' is not KEY=VALUE");
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = item.substr(equals + 1);
    bool ok = true;
    if (key == "immediate" || key == "max") {
      int count = 0;
      ok = absl::SimpleAtoi(internal::absl_view(value), &count) && count >= 0;
      (key == "immediate" ? policy.immediate_retries : policy.max_attempts) = count;
    } else if (key == "initial" || key == "cap") {
      const std::optional<std::chrono::microseconds> duration =
          runner_durations::duration_of(value);
      ok = duration.has_value();
      if (ok) (key == "initial" ? policy.backoff.initial : policy.backoff.cap) = *duration;
    } else if (key == "factor" || key == "jitter") {
      double number = 0;
      ok = absl::SimpleAtod(internal::absl_view(value), &number) &&
           (key == "factor" ? number >= 1 && number <= 100 : number >= 0 && number <= 1);
      (key == "factor" ? policy.backoff.factor : policy.backoff.jitter) = number;
    } else {
      return invalid(spec, "unknown key '" + std::string(key) +
                               "' (immediate, initial, factor, cap, jitter, max)");
    }
    if (!ok)
      return invalid(spec, "'" + std::string(value) + "' is not a valid " + std::string(key));
  }
  if (policy.backoff.cap < policy.backoff.initial) return invalid(spec, "cap is below initial");
  return policy;
}

}  // namespace

absl::Status add_retry_policy_spec(std::string_view spec, RetryPolicies& policies) {
  // The rule ends at the first '=' (a C++ type name has none).
  const std::size_t equals = spec.find('=');
  if (equals == std::string_view::npos) return invalid(spec, "not RULE=POLICY");
  const std::string_view rule = spec.substr(0, equals);
  absl::StatusOr<RetryPolicy> policy = policy_of(spec, spec.substr(equals + 1));
  if (!policy.ok()) return policy.status();
  if (rule == "default") {
    policies.otherwise(*std::move(policy));
  } else if (rule.starts_with("exception:") && rule.size() > 10) {
    policies.on_exception(std::string(rule.substr(10)), *std::move(policy));
  } else if (rule.starts_with("code:")) {
    const std::optional<absl::StatusCode> code = code_named(rule.substr(5));
    if (!code) return invalid(spec, "unknown status code (DEADLINE_EXCEEDED, UNAVAILABLE, ...)");
    policies.on_code(*code, *std::move(policy));
  } else if (rule.starts_with("reason:")) {
    const std::optional<FailureReason> reason = reason_named(rule.substr(7));
    if (!reason) {
      return invalid(spec,
                     "unknown failure reason (TransportNotReady, TransportException, "
                     "SerializationError, ValidationError, EventStorageFailure, Unknown)");
    }
    policies.on_reason(*reason, *std::move(policy));
  } else {
    return invalid(spec, "the rule is default, exception:TYPE, code:CODE or reason:REASON");
  }
  return absl::OkStatus();
}

absl::StatusOr<RetryPolicies> parse_retry_policy_specs(std::span<const std::string> specs) {
  RetryPolicies policies;
  for (const std::string& spec : specs) {
    if (absl::Status added = add_retry_policy_spec(spec, policies); !added.ok()) return added;
  }
  return policies;
}

}  // namespace whizbang
