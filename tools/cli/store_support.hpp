// What the `whizbang store` subcommands share: cell formatting for their tables and JSON, the FILE
// argument, and the subcommands store_command.cpp adds from inspect_command.cpp and
// dead_letter_command.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/command_line.hpp"
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

// The FILE argument every `store` subcommand takes first.
CLI::Option* add_file_argument(CLI::App& command, std::string& file);
// The footer of the read-only subcommands.
inline constexpr const char* kReadOnlyNote =
    "Opens FILE read-only: nothing is created, migrated or written, so it is safe on a live store.";

// whizbang store inspect FILE [--recent N] [--json]: read-only.
void add_store_inspect_command(CommandTree& tree, CLI::App& store);
// whizbang store dead-letters FILE [--limit N] [--json] (read-only) and
// whizbang store requeue FILE (--all | ID...) (writes).
void add_dead_letter_commands(CommandTree& tree, CLI::App& store);

}  // namespace whizbang::cli
