// What the `whizbang store` subcommands share: cell formatting for their tables and JSON, the FILE
// argument, and the subcommands store_command.cpp adds from inspect_command.cpp and
// dead_letter_command.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/command_line.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/store/store_inspector.hpp"
#include "whizbang/store/work_item.hpp"
#include "whizbang/store/work_store.hpp"

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

// The store every `store` subcommand takes first: FILE, a store location as open_work_store reads
// it (open_work_store.hpp): a SQLite path (an existing file, any path, or sqlite:PATH; '=' in it
// is fine), a postgresql:// URI, or libpq key=value pairs; with --pg, FILE is a PostgreSQL
// conninfo whatever it looks like ("" or "postgresql:": WHIZBANG_PG_CONNINFO).
struct StoreArgument {
  std::string file;
  bool pg = false;
};
void add_store_argument(CLI::App& command, StoreArgument& store);
// The read-only view of that store.
absl::StatusOr<std::unique_ptr<StoreInspector>> open_inspector(const StoreArgument& store);
// The same for a command that prints what it reads (inspect, stream, dead-letters): a store of a
// newer schema than this tool knows is read as far as the tool knows it, with one line on stderr:
// "whizbang: warning: store schema version 9 is newer than this tool knows (7); output may be
// incomplete".
absl::StatusOr<std::unique_ptr<StoreInspector>> open_for_reading(const StoreArgument& store,
                                                                 const Io& io);
// The store opened for writing, as a service opens it (migrating an older schema).
absl::StatusOr<std::unique_ptr<WorkStore>> open_writable(const StoreArgument& store);
// The footer of the read-only subcommands.
inline constexpr const char* kReadOnlyNote =
    "Opens FILE read-only: nothing is created, migrated or written, so it is safe on a live store.";

// whizbang store inspect FILE [--recent N] [--json]: read-only.
void add_store_inspect_command(CommandTree& tree, CLI::App& store);
// whizbang store dead-letters FILE [--limit N] [--json] (read-only) and
// whizbang store requeue FILE (--all | ID...) (writes).
void add_dead_letter_commands(CommandTree& tree, CLI::App& store);

}  // namespace whizbang::cli
