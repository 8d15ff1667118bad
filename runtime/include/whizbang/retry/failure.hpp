// Failures: how a receptor fails, and how the runtime keeps a failure from crossing a boundary.
//
// A receptor fails by throwing (any exception, std::exception or not). The runtime catches it at
// every boundary — a dispatch (`send`, `publish`, `local_invoke`), a worker cycle, an executor
// task, a transport delivery — and turns it into an `absl::Status` that names the receptor and
// carries the exception's text. On a worker the handling then fails: the row is retried with
// backoff and dead-lettered after `StoreOptions::max_attempts` (docs/guide/11-failures.md).
//
// Some failures are certain to repeat: the message is invalid, or the guardrail found a receptor
// about to fire twice (`OnDoubleFire::Throw`). Throw `PermanentFailure` for the first kind; the
// row is then dead-lettered at once instead of being retried.
//
//   void handle(const ChargeCard& command) {
//     if (command.amount <= 0) throw whizbang::PermanentFailure("amount must be positive");
//     gateway_.charge(command);   // throws on a timeout: retried with backoff
//   }
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "absl/status/status.h"

namespace whizbang {

// Thrown by a receptor whose message can never succeed: no retry, straight to the dead letters.
class PermanentFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Base of the runtime's own exceptions for a failure certain to repeat, whose text already says
// what happened (exactly_once's DuplicateReceptorFireException): permanent, like PermanentFailure,
// but reported as "<context>: <what>". Lower layers catch it without knowing who throws it.
class PermanentRuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Marks `status` (not OK) as permanent: a worker dead-letters the row at once.
absl::Status mark_permanent(absl::Status status);
// True when `status` was marked permanent (PermanentFailure, a duplicate receptor fire).
bool is_permanent(const absl::Status& status);

// Call only inside a catch block: the exception being handled as a status whose message starts
// with `context` ("receptor shop::Mailer", "inbox cycle"). std::exception: Unknown with what();
// PermanentFailure and PermanentRuntimeError (DuplicateReceptorFireException): FailedPrecondition,
// marked permanent;
// anything else: Unknown, "threw a non-standard exception".
absl::Status status_from_current_exception(std::string_view context) noexcept;

// The dynamic type of the exception a status was made from by status_from_current_exception
// ("shop::GatewayTimeout", "std::runtime_error"), demangled; empty when it was not made from
// an exception. Retry policies match on it (whizbang/store/retry_policies.hpp).
std::string exception_type(const absl::Status& status);

// `type`'s name as C++ spells it ("shop::GatewayTimeout"): what exception_type() reports.
std::string demangled_type_name(const std::type_info& type);

// Runs `call` (returning absl::Status) and returns its status, or the status of what it threw.
template <class Call>
absl::Status status_of_call(std::string_view context, Call&& call) noexcept {
  try {
    return call();
  } catch (...) {
    return status_from_current_exception(context);
  }
}

}  // namespace whizbang
