// whizbang store: the help, the subcommand table and `store stream` (one stream's events). The
// other subcommands live in inspect_command.cpp (inspect) and dead_letter_command.cpp
// (dead-letters, requeue).
#include <memory>
#include <ostream>

#include "cli/commands.hpp"
#include "cli/json_output.hpp"
#include "cli/store_support.hpp"
#include "cli/text_table.hpp"
#include "fmt/format.h"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"

namespace whizbang::cli {
namespace {

constexpr std::string_view kStoreHelp =
    R"(usage: whizbang store <command> [options]

commands:
  inspect FILE [--recent N] [--json]   row counts (and how many rows are dead-lettered) and the N
                                       most recent rows (default 5, 0 for counts only) of the
                                       outbox, inbox, event store, perspective events and receptor
                                       invocation records
  stream FILE STREAM_ID [--json]       one stream's events in version order: version, event id,
                                       type, created at, payload JSON
  dead-letters FILE [--limit N] [--json]
                                       every dead letter (outbox, inbox, perspective event,
                                       lifecycle completion, detached work), oldest first: source,
                                       id, type, target, stream, attempts, reason, dead-lettered at
                                       and the last error; --limit shows the N oldest
  requeue FILE (--all | ID...)         gives dead letters a fresh set of attempts, due now: every
                                       one (--all), or those with these ids (the ID column of
                                       dead-letters); prints how many it requeued

inspect, stream and dead-letters open FILE read-only: nothing is created, migrated or written, so
they are safe on a live store. requeue writes, next to running services as safely as one of them:
it opens FILE as a service does, which migrates an older schema (a store older than dead letters
has none and is left as it is). A missing file, a directory, a file that is not SQLite or not a
Whizbang store, a malformed stream id or ID, or an unknown option prints one line and exits 2.
)";

absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> open_store(const std::string& path) {
  return SqliteStoreInspector::open(path);
}

int store_stream(const Args& args, const Io& io) {
  if (args.positional().size() != 2) {
    return usage_error(io, "store stream takes a FILE and a STREAM_ID");
  }
  const absl::StatusOr<Uuid> stream_id = Uuid::parse(args.positional()[1]);
  if (!stream_id.ok()) {
    return usage_error(io, fmt::format("STREAM_ID: {}", std::string(stream_id.status().message())));
  }
  absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> store = open_store(args.positional()[0]);
  if (!store.ok()) return status_error(io, store.status());
  absl::StatusOr<std::vector<StoredEvent>> events = (*store)->read_stream(*stream_id);
  if (!events.ok()) return status_error(io, events.status());

  if (args.has("json")) {
    JsonOutput json;
    auto& w = json.writer();
    w.StartObject();
    json.key("stream_id");
    json.uuid(*stream_id);
    json.key("events");
    w.StartArray();
    for (const StoredEvent& event : *events) {
      w.StartObject();
      json.key("version");
      w.Int64(event.version);
      json.key("event_id");
      json.uuid(event.event_id.uuid());
      json.key("event_type");
      json.string(event.event_type);
      json.key("created_at");
      json.string(format_time(event.created_at));
      json.key("payload");
      json.json_or_string(event.event_data);
      json.key("metadata");
      json.json_or_string(event.metadata);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    io.out << json.str();
    return kExitOk;
  }
  io.out << "stream " << stream_id->to_string() << ": " << events->size()
         << (events->size() == 1 ? " event" : " events") << "\n";
  if (events->empty()) return kExitOk;
  TextTable table({"VERSION", "EVENT ID", "TYPE", "CREATED AT", "PAYLOAD"});
  for (const StoredEvent& event : *events) {
    table.add({std::to_string(event.version), event.event_id.to_string(), event.event_type,
               format_time(event.created_at), event.event_data});
  }
  table.print(io.out, "  ");
  return kExitOk;
}

}  // namespace

int run_store_command(const std::vector<std::string>& argv, const Io& io) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    (argv.empty() ? io.err : io.out) << kStoreHelp;
    return argv.empty() ? kExitUsage : kExitOk;
  }
  struct Command {
    const char* name;
    int (*run)(const Args&, const Io&);
    std::vector<std::string> value_flags;
    std::vector<std::string> switches;
  };
  static const Command kCommands[] = {
      {"inspect", store_inspect, {"recent"}, {"json", "help"}},
      {"stream", store_stream, {"recent"}, {"json", "help"}},
      {"dead-letters", store_dead_letters, {"limit"}, {"json", "help"}},
      {"requeue", store_requeue, {}, {"all", "help"}},
  };
  const std::string command = argv[0];
  const Command* found = nullptr;
  for (const Command& candidate : kCommands) {
    if (command == candidate.name) found = &candidate;
  }
  if (found == nullptr) {
    return usage_error(
        io, fmt::format("unknown store command '{}' (try: whizbang store --help)", command));
  }
  const std::vector<std::string> rest(argv.begin() + 1, argv.end());
  const absl::StatusOr<Args> args = Args::parse(rest, found->value_flags, found->switches);
  if (!args.ok()) {
    return usage_error(io,
                       fmt::format("store {}: {}", command, std::string(args.status().message())));
  }
  if (args->has("help")) {
    io.out << kStoreHelp;
    return kExitOk;
  }
  return found->run(*args, io);
}

}  // namespace whizbang::cli
