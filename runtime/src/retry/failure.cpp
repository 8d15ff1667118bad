#include "whizbang/retry/failure.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>

#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "fmt/format.h"

namespace whizbang {
namespace {

// The payload that marks a status permanent; its value says nothing more.
constexpr char kPermanentPayload[] = "type.whizbang.dev/permanent-failure";
// The payload that names the exception's dynamic type.
constexpr char kExceptionTypePayload[] = "type.whizbang.dev/exception-type";

// The type of the exception being handled; any type, not only std::exception's (the C++ ABI
// keeps it for the catch block).
std::string current_exception_type() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  return type == nullptr ? std::string() : demangled_type_name(*type);
}

absl::Status with_exception_type(absl::Status status) {
  if (!status.ok()) {
    if (std::string type = current_exception_type(); !type.empty()) {
      status.SetPayload(kExceptionTypePayload, absl::Cord(type));
    }
  }
  return status;
}

absl::Status status_of_exception(std::string_view context);

}  // namespace

absl::Status mark_permanent(absl::Status status) {
  if (!status.ok()) status.SetPayload(kPermanentPayload, absl::Cord("permanent"));
  return status;
}

bool is_permanent(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kPermanentPayload).has_value();
}

std::string demangled_type_name(const std::type_info& type) {
  int result = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &result), std::free);
  return result == 0 && demangled ? std::string(demangled.get()) : std::string(type.name());
}

std::string exception_type(const absl::Status& status) {
  if (status.ok()) return {};
  auto type = status.GetPayload(kExceptionTypePayload);  // absl::optional (not std on Debian)
  return type ? std::string(*type) : std::string();
}

absl::Status status_from_current_exception(std::string_view context) noexcept {
  try {
    return with_exception_type(status_of_exception(context));
  } catch (...) {
    // Formatting itself failed (out of memory): a status without text still fails the handling.
    return absl::UnknownError("an exception was thrown and could not be described");
  }
}

namespace {

absl::Status status_of_exception(std::string_view context) {
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
}

}  // namespace

}  // namespace whizbang
