// Small building blocks shared by the `whizbang` subcommands: exit codes, streams, errors, time.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "whizbang/cli/admin_cli.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang::cli {

// Exit codes: 0 success, 1 runtime failure, 2 bad input (usage, malformed values).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Prints "whizbang: <message>" on one line (the message through printable(): a newline or a
// control character in it shows as \xNN) and returns kExitUsage.
int usage_error(const Io& io, std::string_view message);
int usage_error(const Io& io, const absl::Status& status);

// One line for a failed operation: exit 2 when the status says the input was bad (NotFound,
// InvalidArgument, DataLoss: not the expected kind of file, FailedPrecondition), else 1.
int status_error(const Io& io, const absl::Status& status);

// "2024-07-01T12:34:56.123456Z" (UTC, microseconds).
std::string format_time(TimePoint time);

}  // namespace whizbang::cli
