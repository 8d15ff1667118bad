// What the `whizbang store` subcommands share: cell formatting for their tables and JSON, and the
// subcommands store_command.cpp dispatches to in inspect_command.cpp and dead_letter_command.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/cli.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::cli {

// "Stored|Failed": the status bits by name, unknown bits in hex.
std::string status_text(MessageStatus status);
// "MaxAttemptsExceeded": the FailureReason's enumerator; an unknown value as its number.
std::string failure_reason_text(FailureReason reason);

// "-" for an empty or absent cell.
std::string or_dash(const std::string& text);
std::string or_dash(const std::optional<std::string>& text);
std::string or_dash(const std::optional<Uuid>& id);

// `text` on one line: newlines, carriage returns and tabs as \n, \r, \t (for table cells).
std::string one_line(std::string_view text);

// whizbang store inspect FILE [--recent N] [--json]: read-only.
int store_inspect(const Args& args, const Io& io);
// whizbang store dead-letters FILE [--limit N] [--json]: read-only.
int store_dead_letters(const Args& args, const Io& io);
// whizbang store requeue FILE (--all | ID...): writes.
int store_requeue(const Args& args, const Io& io);

}  // namespace whizbang::cli
