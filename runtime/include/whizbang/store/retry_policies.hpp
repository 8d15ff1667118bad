// RetryPolicies: which RetryPolicy a failure gets (docs/guide/11-failures.md, "Retry policies").
//
//   whizbang::RetryPolicies policies;
//   policies.on_exception<shop::GatewayTimeout>(flaky_gateway)        // a receptor's own type
//       .on_exception<shop::CardDeclined>(whizbang::RetryPolicy::dead_letter_at_once())
//       .on_reason(whizbang::FailureReason::TransportException, broker_down);
//   host_options.retry_policies = policies;
//
// The first that matches, in this order: a permanent failure (PermanentFailure, a duplicate
// fire) always dead-letters at once; then the exception's type (its dynamic type, exactly as
// named: a derived type needs its own rule); then the status code (absl::StatusCode, e.g.
// kDeadlineExceeded for a timeout a receptor reports); then the failure reason (transport,
// event storage, ...); then the default, whose own default is the store's schedule (60 s, 120 s,
// 240 s, then 300 s; StoreOptions::max_attempts).
#pragma once

#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "whizbang/retry/failure.hpp"
#include "whizbang/retry/retry_policy.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang {

// What the policies make of one failure: dead-letter it now, or retry it as `retry` says (unset:
// the store's own schedule).
struct RetryOutcome {
  bool dead_letter = false;
  std::optional<RetryDecision> retry = std::nullopt;
};

class RetryPolicies {
 public:
  // `type`: the exception's type as C++ names it ("shop::GatewayTimeout", "std::runtime_error").
  RetryPolicies& on_exception(std::string type, RetryPolicy policy);
  template <class Exception>
  RetryPolicies& on_exception(RetryPolicy policy) {
    return on_exception(demangled_type_name(typeid(Exception)), std::move(policy));
  }
  RetryPolicies& on_code(absl::StatusCode code, RetryPolicy policy);
  RetryPolicies& on_reason(FailureReason reason, RetryPolicy policy);
  RetryPolicies& otherwise(RetryPolicy policy);

  // The policy of a failure with `status` (not OK) and `reason`.
  const RetryPolicy& policy_for(const absl::Status& status, FailureReason reason) const;
  // Sets `failure`'s retry decision (or dead_letter) for a row that had failed `failures_before`
  // times. A failure already marked dead_letter stays so.
  void apply(const absl::Status& status, int failures_before, WorkFailure& failure) const;
  // The same for a failure the store records by its key, whose reason is Unknown: a perspective
  // event, a lifecycle completion, detached work (PerspectiveStore::fail_perspective_work,
  // StageWorkStore). `dead_letter`: the caller dead-letters it anyway (it cannot be read).
  RetryOutcome outcome(const absl::Status& status, int failures_before, bool dead_letter) const;
  // True when nothing was configured (every failure gets the store's own schedule).
  bool is_default() const;

 private:
  std::vector<std::pair<std::string, RetryPolicy>> by_exception_;
  std::vector<std::pair<absl::StatusCode, RetryPolicy>> by_code_;
  std::vector<std::pair<FailureReason, RetryPolicy>> by_reason_;
  RetryPolicy default_;
  bool configured_ = false;
};

}  // namespace whizbang
