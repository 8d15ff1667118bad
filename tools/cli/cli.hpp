// Small building blocks shared by the `whizbang` subcommands: argument access, errors, output.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/message/envelope.hpp"

namespace whizbang::cli {

// Exit codes: 0 success, 1 runtime failure, 2 bad input (usage, malformed values).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Io {
  std::ostream& out;
  std::ostream& err;
};

// Parsed `--flag value`, `--switch` and positional arguments of one subcommand.
class Args {
 public:
  // `switches` names flags that take no value (e.g. "json", "help").
  static absl::StatusOr<Args> parse(const std::vector<std::string>& argv,
                                    const std::vector<std::string>& value_flags,
                                    const std::vector<std::string>& switches);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> value(const std::string& name) const;
  absl::StatusOr<std::string> required(const std::string& name) const;
  // A required flag holding a whole number >= `min`.
  absl::StatusOr<std::int64_t> required_int(const std::string& name, std::int64_t min) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

// Prints "whizbang: <message>" on one line and returns kExitUsage.
int usage_error(const Io& io, std::string_view message);
int usage_error(const Io& io, const absl::Status& status);

// One line for a failed operation: exit 2 when the status says the input was bad (NotFound,
// InvalidArgument, DataLoss: not the expected kind of file, FailedPrecondition), else 1.
int status_error(const Io& io, const absl::Status& status);

// "2024-07-01T12:34:56.123456Z" (UTC, microseconds).
std::string format_time(TimePoint time);

}  // namespace whizbang::cli
