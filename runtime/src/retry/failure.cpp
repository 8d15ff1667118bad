#include "whizbang/retry/failure.hpp"

#include <exception>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "fmt/format.h"

namespace whizbang {
namespace {

// The payload that marks a status permanent; its value says nothing more.
constexpr char kPermanentPayload[] = "type.whizbang.dev/permanent-failure";

}  // namespace

absl::Status mark_permanent(absl::Status status) {
  if (!status.ok()) status.SetPayload(kPermanentPayload, absl::Cord("permanent"));
  return status;
}

bool is_permanent(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kPermanentPayload).has_value();
}

absl::Status status_from_current_exception(std::string_view context) noexcept {
  try {
    try {
      throw;
    } catch (const PermanentRuntimeError& duplicate) {
      return mark_permanent(
          absl::FailedPreconditionError(fmt::format("{}: {}", context, duplicate.what())));
    } catch (const PermanentFailure& failure) {
      return mark_permanent(absl::FailedPreconditionError(
          fmt::format("{} failed permanently: {}", context, failure.what())));
    } catch (const absl::BadStatusOrAccess& access) {
      // StatusOr::value() on an error (a receptor's `sql.execute(...).value()`): the status keeps
      // its code, so a transient database error stays one (docs/guide/17-your-data.md).
      return absl::Status(
          access.status().code(),
          fmt::format("{} threw: {}", context, std::string(access.status().message())));
    } catch (const std::exception& error) {
      return absl::UnknownError(fmt::format("{} threw: {}", context, error.what()));
    } catch (...) {
      return absl::UnknownError(fmt::format("{} threw a non-standard exception", context));
    }
  } catch (...) {
    // Formatting itself failed (out of memory): a status without text still fails the handling.
    return absl::UnknownError("an exception was thrown and could not be described");
  }
}

}  // namespace whizbang
