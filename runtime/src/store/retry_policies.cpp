#include "whizbang/store/retry_policies.hpp"

#include "whizbang/retry/failure.hpp"

namespace whizbang {
namespace {

// A rule replaces an earlier one for the same key.
template <class Key>
void put(std::vector<std::pair<Key, RetryPolicy>>& rules, Key key, RetryPolicy policy) {
  for (auto& [existing, kept] : rules) {
    if (existing == key) {
      kept = std::move(policy);
      return;
    }
  }
  rules.emplace_back(std::move(key), std::move(policy));
}

template <class Key>
const RetryPolicy* find(const std::vector<std::pair<Key, RetryPolicy>>& rules, const Key& key) {
  for (const auto& [existing, policy] : rules) {
    if (existing == key) return &policy;
  }
  return nullptr;
}

const RetryPolicy& dead_letter_at_once() {
  static const RetryPolicy policy = RetryPolicy::dead_letter_at_once();
  return policy;
}

}  // namespace

RetryPolicies& RetryPolicies::on_exception(std::string type, RetryPolicy policy) {
  put(by_exception_, std::move(type), std::move(policy));
  configured_ = true;
  return *this;
}

RetryPolicies& RetryPolicies::on_code(absl::StatusCode code, RetryPolicy policy) {
  put(by_code_, code, std::move(policy));
  configured_ = true;
  return *this;
}

RetryPolicies& RetryPolicies::on_reason(FailureReason reason, RetryPolicy policy) {
  put(by_reason_, reason, std::move(policy));
  configured_ = true;
  return *this;
}

RetryPolicies& RetryPolicies::otherwise(RetryPolicy policy) {
  default_ = std::move(policy);
  configured_ = true;
  return *this;
}

bool RetryPolicies::is_default() const { return !configured_; }

const RetryPolicy& RetryPolicies::policy_for(const absl::Status& status,
                                             FailureReason reason) const {
  if (is_permanent(status)) return dead_letter_at_once();
  if (const std::string type = exception_type(status); !type.empty()) {
    if (const RetryPolicy* policy = find(by_exception_, type)) return *policy;
  }
  if (const RetryPolicy* policy = find(by_code_, status.code())) return *policy;
  if (const RetryPolicy* policy = find(by_reason_, reason)) return *policy;
  return default_;
}

namespace {

RetryOutcome outcome_of(const RetryPolicies& policies, const absl::Status& status,
                        int failures_before, FailureReason reason, bool dead_letter) {
  // A dead letter stays one; nothing configured: the store's own schedule.
  if (dead_letter || policies.is_default()) return {.dead_letter = dead_letter};
  const RetryPolicy& policy = policies.policy_for(status, reason);
  if (!policy.retryable) return {.dead_letter = true};
  return {.dead_letter = false, .retry = policy.decide(failures_before)};
}

}  // namespace

void RetryPolicies::apply(const absl::Status& status, int failures_before,
                          WorkFailure& failure) const {
  RetryOutcome outcome =
      outcome_of(*this, status, failures_before, failure.reason, failure.dead_letter);
  failure.dead_letter = outcome.dead_letter;
  if (outcome.retry) failure.retry = outcome.retry;
}

RetryOutcome RetryPolicies::outcome(const absl::Status& status, int failures_before,
                                    bool dead_letter) const {
  return outcome_of(*this, status, failures_before, FailureReason::Unknown, dead_letter);
}

}  // namespace whizbang
