#include "cli/cli.hpp"

#include <ctime>
#include <ostream>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "whizbang/observability/printable.hpp"

namespace whizbang::cli {

namespace {

// One line, whatever the message holds: it may quote stored text or a typed argument.
void print_error(const Io& io, std::string_view message) {
  io.err << "whizbang: " << printable(message) << "\n";
}

}  // namespace

int usage_error(const Io& io, std::string_view message) {
  print_error(io, message);
  return kExitUsage;
}

int usage_error(const Io& io, const absl::Status& status) {
  print_error(io, std::string_view(status.message().data(), status.message().size()));
  return kExitUsage;
}

int status_error(const Io& io, const absl::Status& status) {
  print_error(io, std::string_view(status.message().data(), status.message().size()));
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kFailedPrecondition:
      return kExitUsage;
    default:
      return kExitFailure;
  }
}

std::string format_time(TimePoint time) {
  const std::int64_t micros =
      std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  std::int64_t seconds = micros / 1000000;
  std::int64_t fraction = micros % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    --seconds;
  }
  const std::time_t as_time_t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&as_time_t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, fraction);
}

}  // namespace whizbang::cli
