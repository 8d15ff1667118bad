// whizbang store: the group, its help and `store stream` (one stream's events). The other
// subcommands live in inspect_command.cpp (inspect) and dead_letter_command.cpp (dead-letters,
// requeue).
#include <memory>
#include <ostream>

#include "cli/json_output.hpp"
#include "cli/store_columns.hpp"
#include "cli/store_support.hpp"
#include "fmt/format.h"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/store_inspector.hpp"
#include "whizbang/workers/perspective_worker.hpp"

namespace whizbang::cli {
namespace {

struct StreamOptions {
  StoreArgument store;
  std::string stream_id;
  bool json = false;
  bool upcast = false;
  const Registry* registry = nullptr;
};

// Each payload as the registry's read paths see it: decoded (upcast to the current shape of its
// type) and written again. A row that does not decode shows why in place of its payload.
void upcast_payloads(std::vector<StoredEvent>& events, const Registry& registry) {
  for (StoredEvent& event : events) {
    absl::StatusOr<Envelope> envelope = envelope_from_stored_event(
        event.event_id, event.event_type, event.event_data, event.metadata, registry);
    if (!envelope.ok()) {
      event.event_data = "cannot upcast: ";
      event.event_data += envelope.status().ToString();
    } else if (envelope->payload) {
      event.event_data = envelope->payload.info()->to_json(envelope->payload.data());
    }
  }
}

int store_stream(const StreamOptions& options, const Io& io) {
  const absl::StatusOr<Uuid> stream_id = Uuid::parse(options.stream_id);
  if (!stream_id.ok()) {
    return usage_error(io, fmt::format("STREAM_ID: {}", std::string(stream_id.status().message())));
  }
  if (options.upcast && options.registry == nullptr) {
    return usage_error(io,
                       "--upcast needs the message types: this whizbang binary has none. Run it "
                       "from a program linked with the service's registry "
                       "(whizbang::cli::run_cli(args, io, registry)); without --upcast the "
                       "payloads print as stored, with their version (SHAPE)");
  }
  absl::StatusOr<std::unique_ptr<StoreInspector>> store = open_for_reading(options.store, io);
  if (!store.ok()) return status_error(io, store.status());
  absl::StatusOr<std::vector<StoredEvent>> events = (*store)->read_stream(*stream_id);
  if (!events.ok()) return status_error(io, events.status());
  if (options.upcast) upcast_payloads(*events, *options.registry);

  if (options.json) {
    JsonOutput json;
    json.writer().StartObject();
    json.key("stream_id");
    json.uuid(*stream_id);
    json.key("events");
    write_objects(json, stream_event_columns(), *events);
    json.writer().EndObject();
    io.out << json.str();
    return kExitOk;
  }
  io.out << "stream " << stream_id->to_string() << ": " << events->size()
         << (events->size() == 1 ? " event" : " events") << "\n";
  if (events->empty()) return kExitOk;
  table_of(stream_event_columns(), *events).print(io.out, "  ");
  return kExitOk;
}

}  // namespace

void add_store_commands(CommandTree& tree, const Registry* registry) {
  CLI::App* store = tree.add_group(
      tree.root(), "store",
      "a store's rows, streams and dead letters (SQLite or PostgreSQL); requeue dead letters");
  store->footer(
      "inspect, stream and dead-letters open FILE read-only: nothing is created, migrated or\n"
      "written, so they are safe on a live store. requeue writes, next to running services as\n"
      "safely as one of them: it opens FILE as a service does, which migrates an older schema (a\n"
      "store older than dead letters has none and is left as it is). A missing file, a directory,\n"
      "a file that is not SQLite or not a Whizbang store, a malformed stream id or ID, or an\n"
      "unknown option prints one line and exits 2.");
  add_store_inspect_command(tree, *store);

  auto stream = std::make_shared<StreamOptions>();
  stream->registry = registry;
  CLI::App* stream_command =
      tree.add_command(*store, "stream", "one stream's events in version order",
                       [stream](const Io& io) { return store_stream(*stream, io); });
  add_store_argument(*stream_command, stream->store);
  stream_command->add_option("STREAM_ID", stream->stream_id, "the stream's id")
      ->type_name("")
      ->required();
  stream_command->add_flag("--json", stream->json, "print the events as a JSON document");
  stream_command->add_flag("--upcast", stream->upcast,
                           "print each payload upcast to its type's current shape (only in a "
                           "program linked with the service's registry)");
  stream_command->footer(fmt::format(
      "Columns: version, event id, type, created at, payload shape version (SHAPE, from the\n"
      "hops' \"whizbang.v\", v1 when absent), payload JSON as stored.\n{}",
      kReadOnlyNote));

  add_dead_letter_commands(tree, *store);
}

}  // namespace whizbang::cli
