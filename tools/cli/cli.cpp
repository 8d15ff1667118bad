#include "cli/cli.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <ostream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "fmt/format.h"

namespace whizbang::cli {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

absl::StatusOr<Args> Args::parse(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& value_flags,
                                 const std::vector<std::string>& switches) {
  Args args;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      args.positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (contains(switches, name)) {
      if (inline_value)
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      args.values_[name] = "";
    } else if (contains(value_flags, name)) {
      if (inline_value) {
        args.values_[name] = *inline_value;
      } else if (i + 1 < argv.size()) {
        args.values_[name] = argv[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option --", name));
    }
  }
  return args;
}

std::optional<std::string> Args::value(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::string> Args::required(const std::string& name) const {
  auto found = value(name);
  if (!found) return absl::InvalidArgumentError(absl::StrCat("missing required option --", name));
  return *found;
}

absl::StatusOr<std::int64_t> Args::required_int(const std::string& name, std::int64_t min) const {
  absl::StatusOr<std::string> text = required(name);
  if (!text.ok()) return text.status();
  std::int64_t number = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, number);
  if (ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be a whole number; got '", *text, "'"));
  }
  if (number < min) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be >= ", min, "; got ", number));
  }
  return number;
}

int usage_error(const Io& io, std::string_view message) {
  io.err << "whizbang: " << message << "\n";
  return kExitUsage;
}

int usage_error(const Io& io, const absl::Status& status) {
  io.err << "whizbang: " << status.message() << "\n";
  return kExitUsage;
}

int status_error(const Io& io, const absl::Status& status) {
  io.err << "whizbang: " << status.message() << "\n";
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
