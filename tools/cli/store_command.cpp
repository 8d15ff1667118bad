// whizbang store: read-only views of a SQLite work store (counts, recent rows, one stream).
#include <memory>
#include <ostream>

#include "cli/commands.hpp"
#include "cli/json_output.hpp"
#include "cli/text_table.hpp"
#include "fmt/format.h"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"

namespace whizbang::cli {
namespace {

constexpr std::string_view kStoreHelp =
    R"(usage: whizbang store <command> [options]

commands:
  inspect FILE [--recent N] [--json]   row counts and the N most recent rows (default 5, 0 for
                                       counts only) of the outbox, inbox, event store, perspective
                                       events and receptor invocation records
  stream FILE STREAM_ID [--json]       one stream's events in version order: version, event id,
                                       type, created at, payload JSON

FILE is opened read-only: nothing is created, migrated or written, so it is safe on a live store.
A missing file, a directory, a file that is not SQLite or not a Whizbang store, or a malformed
stream id prints one line and exits 2.
)";

constexpr std::int64_t kDefaultRecent = 5;

std::string status_text(MessageStatus status) {
  const auto bits = static_cast<std::uint32_t>(status);
  if (bits == 0) return "None";
  std::string text;
  const std::pair<MessageStatus, const char*> flags[] = {
      {MessageStatus::Stored, "Stored"},
      {MessageStatus::EventStored, "EventStored"},
      {MessageStatus::Published, "Published"},
      {MessageStatus::Failed, "Failed"},
  };
  std::uint32_t known = 0;
  for (const auto& [flag, name] : flags) {
    known |= static_cast<std::uint32_t>(flag);
    if (!has_status(status, flag)) continue;
    if (!text.empty()) text += "|";
    text += name;
  }
  if ((bits & ~known) != 0) text += fmt::format("{}0x{:x}", text.empty() ? "" : "|", bits & ~known);
  return text;
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }
std::string or_dash(const std::optional<std::string>& text) { return text ? or_dash(*text) : "-"; }
std::string or_dash(const std::optional<Uuid>& id) { return id ? id->to_string() : "-"; }

absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> open_store(const std::string& path) {
  return SqliteStoreInspector::open(path);
}

// All sections of `store inspect`, read before anything is printed so a failure prints one line.
struct Snapshot {
  StoreCounts counts;
  std::vector<OutboxRow> outbox;
  std::vector<InboxRow> inbox;
  std::vector<StoredEvent> events;
  std::vector<PerspectiveEventRow> perspective_events;
  std::vector<StoredReceptorInvocation> invocations;
};

absl::StatusOr<Snapshot> read_snapshot(SqliteStoreInspector& store, int recent) {
  Snapshot snapshot;
  absl::StatusOr<StoreCounts> counts = store.counts();
  if (!counts.ok()) return counts.status();
  snapshot.counts = *counts;
  absl::StatusOr<std::vector<OutboxRow>> outbox = store.recent_outbox(recent);
  if (!outbox.ok()) return outbox.status();
  snapshot.outbox = *std::move(outbox);
  absl::StatusOr<std::vector<InboxRow>> inbox = store.recent_inbox(recent);
  if (!inbox.ok()) return inbox.status();
  snapshot.inbox = *std::move(inbox);
  absl::StatusOr<std::vector<StoredEvent>> events = store.recent_events(recent);
  if (!events.ok()) return events.status();
  snapshot.events = *std::move(events);
  absl::StatusOr<std::vector<PerspectiveEventRow>> perspective =
      store.recent_perspective_events(recent);
  if (!perspective.ok()) return perspective.status();
  snapshot.perspective_events = *std::move(perspective);
  absl::StatusOr<std::vector<StoredReceptorInvocation>> invocations =
      store.recent_receptor_invocations(recent);
  if (!invocations.ok()) return invocations.status();
  snapshot.invocations = *std::move(invocations);
  return snapshot;
}

void write_state_json(JsonOutput& json, const RowState& state, const char* created_key) {
  auto& w = json.writer();
  json.key("status");
  json.string(status_text(state.status));
  json.key("status_bits");
  w.Uint(static_cast<std::uint32_t>(state.status));
  json.key("attempts");
  w.Int(state.attempts);
  json.key("error");
  json.optional_string(state.error.empty() ? std::nullopt : std::optional(state.error));
  json.key("instance_id");
  json.optional_uuid(state.instance_id);
  json.key(created_key);
  json.string(format_time(state.created_at));
}

void print_inspect_json(const Io& io, const SqliteStoreInspector& store, const Snapshot& s) {
  JsonOutput json;
  auto& w = json.writer();
  w.StartObject();
  json.key("file");
  json.string(store.path());
  json.key("schema_version");
  w.Int(store.schema_version());
  json.key("counts");
  w.StartObject();
  const std::pair<const char*, std::int64_t> counts[] = {
      {"outbox", s.counts.outbox},
      {"outbox_tombstones", s.counts.outbox_tombstones},
      {"inbox", s.counts.inbox},
      {"event_store", s.counts.event_store},
      {"perspective_events", s.counts.perspective_events},
      {"receptor_invocations", s.counts.receptor_invocations},
  };
  for (const auto& [name, count] : counts) {
    json.key(name);
    w.Int64(count);
  }
  w.EndObject();

  json.key("outbox");
  w.StartArray();
  for (const OutboxRow& row : s.outbox) {
    w.StartObject();
    json.key("message_id");
    json.uuid(row.message.message_id.uuid());
    json.key("message_type");
    json.string(row.message.message_type);
    json.key("destination");
    json.optional_string(row.message.destination);
    json.key("stream_id");
    json.optional_uuid(row.message.stream_id);
    json.key("is_event");
    w.Bool(row.message.is_event);
    write_state_json(json, row.state, "created_at");
    w.EndObject();
  }
  w.EndArray();

  json.key("inbox");
  w.StartArray();
  for (const InboxRow& row : s.inbox) {
    w.StartObject();
    json.key("message_id");
    json.uuid(row.message.message_id.uuid());
    json.key("message_type");
    json.string(row.message.message_type);
    json.key("handler_name");
    json.string(row.message.handler_name);
    json.key("stream_id");
    json.optional_uuid(row.message.stream_id);
    json.key("is_event");
    w.Bool(row.message.is_event);
    write_state_json(json, row.state, "received_at");
    w.EndObject();
  }
  w.EndArray();

  json.key("event_store");
  w.StartArray();
  for (const StoredEvent& event : s.events) {
    w.StartObject();
    json.key("event_id");
    json.uuid(event.event_id.uuid());
    json.key("stream_id");
    json.uuid(event.stream_id);
    json.key("version");
    w.Int64(event.version);
    json.key("event_type");
    json.string(event.event_type);
    json.key("created_at");
    json.string(format_time(event.created_at));
    w.EndObject();
  }
  w.EndArray();

  json.key("perspective_events");
  w.StartArray();
  for (const PerspectiveEventRow& row : s.perspective_events) {
    w.StartObject();
    json.key("event_work_id");
    json.uuid(row.event_work_id.uuid());
    json.key("stream_id");
    json.uuid(row.stream_id);
    json.key("perspective");
    json.string(row.perspective_name);
    json.key("event_id");
    json.uuid(row.event_id.uuid());
    json.key("status");
    w.Int(row.status);
    json.key("instance_id");
    json.optional_uuid(row.instance_id);
    w.EndObject();
  }
  w.EndArray();

  json.key("receptor_invocations");
  w.StartArray();
  for (const StoredReceptorInvocation& row : s.invocations) {
    w.StartObject();
    json.key("message_id");
    json.uuid(row.message_id.uuid());
    json.key("receptor_id");
    json.string(row.record.receptor_id);
    json.key("service_name");
    json.string(row.record.service_name);
    json.key("perspective");
    json.string(row.record.perspective);
    json.key("stage");
    json.string(to_string(row.record.stage));
    json.key("completed_at");
    json.string(format_time(row.record.completed_at));
    json.key("duration_us");
    w.Int64(row.record.duration.count());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  io.out << json.str();
}

void print_section(const Io& io, const std::string& title, std::int64_t count, std::size_t shown,
                   const TextTable& table) {
  io.out << "\n" << title << ": " << count << (count == 1 ? " row" : " rows");
  if (shown > 0 && static_cast<std::int64_t>(shown) < count) {
    io.out << " (" << shown << " most recent)";
  }
  io.out << "\n";
  if (!table.empty()) table.print(io.out, "  ");
}

void print_inspect_text(const Io& io, const SqliteStoreInspector& store, const Snapshot& s) {
  io.out << "store: " << store.path() << " (schema version " << store.schema_version() << ")\n";

  TextTable outbox(
      {"MESSAGE ID", "TYPE", "DESTINATION", "STREAM", "STATUS", "ATTEMPTS", "CREATED AT", "ERROR"});
  for (const OutboxRow& row : s.outbox) {
    outbox.add({row.message.message_id.to_string(), row.message.message_type,
                or_dash(row.message.destination), or_dash(row.message.stream_id),
                status_text(row.state.status), std::to_string(row.state.attempts),
                format_time(row.state.created_at), or_dash(row.state.error)});
  }
  print_section(io, "outbox", s.counts.outbox, s.outbox.size(), outbox);
  if (s.counts.outbox_tombstones > 0) {
    io.out << "  (+ " << s.counts.outbox_tombstones
           << " published and deleted, ids kept in wh_outbox_tombstones)\n";
  }

  TextTable inbox(
      {"MESSAGE ID", "TYPE", "HANDLER", "STREAM", "STATUS", "ATTEMPTS", "RECEIVED AT", "ERROR"});
  for (const InboxRow& row : s.inbox) {
    inbox.add({row.message.message_id.to_string(), row.message.message_type,
               row.message.handler_name, or_dash(row.message.stream_id),
               status_text(row.state.status), std::to_string(row.state.attempts),
               format_time(row.state.created_at), or_dash(row.state.error)});
  }
  print_section(io, "inbox", s.counts.inbox, s.inbox.size(), inbox);

  TextTable events({"EVENT ID", "STREAM", "VERSION", "TYPE", "CREATED AT"});
  for (const StoredEvent& event : s.events) {
    events.add({event.event_id.to_string(), event.stream_id.to_string(),
                std::to_string(event.version), event.event_type, format_time(event.created_at)});
  }
  print_section(io, "event store", s.counts.event_store, s.events.size(), events);

  TextTable perspective({"EVENT WORK ID", "STREAM", "PERSPECTIVE", "EVENT ID", "STATUS"});
  for (const PerspectiveEventRow& row : s.perspective_events) {
    perspective.add({row.event_work_id.to_string(), row.stream_id.to_string(), row.perspective_name,
                     row.event_id.to_string(), std::to_string(row.status)});
  }
  print_section(io, "perspective events", s.counts.perspective_events, s.perspective_events.size(),
                perspective);

  TextTable invocations(
      {"MESSAGE ID", "RECEPTOR", "SERVICE", "PERSPECTIVE", "STAGE", "COMPLETED AT", "DURATION"});
  for (const StoredReceptorInvocation& row : s.invocations) {
    invocations.add({row.message_id.to_string(), row.record.receptor_id.str(),
                     or_dash(row.record.service_name), or_dash(row.record.perspective),
                     std::string(to_string(row.record.stage)), format_time(row.record.completed_at),
                     fmt::format("{} us", row.record.duration.count())});
  }
  print_section(io, "receptor invocations", s.counts.receptor_invocations, s.invocations.size(),
                invocations);
}

int store_inspect(const Args& args, const Io& io) {
  if (args.positional().size() != 1) return usage_error(io, "store inspect takes one FILE");
  std::int64_t recent = kDefaultRecent;
  if (args.has("recent")) {
    absl::StatusOr<std::int64_t> parsed = args.required_int("recent", 0);
    if (!parsed.ok()) return usage_error(io, parsed.status());
    if (*parsed > 1000000) return usage_error(io, "--recent must be <= 1000000");
    recent = *parsed;
  }
  absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> store = open_store(args.positional()[0]);
  if (!store.ok()) return status_error(io, store.status());
  absl::StatusOr<Snapshot> snapshot = read_snapshot(**store, static_cast<int>(recent));
  if (!snapshot.ok()) return status_error(io, snapshot.status());
  if (args.has("json")) {
    print_inspect_json(io, **store, *snapshot);
  } else {
    print_inspect_text(io, **store, *snapshot);
  }
  return kExitOk;
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
  const std::string command = argv[0];
  const std::vector<std::string> rest(argv.begin() + 1, argv.end());
  const absl::StatusOr<Args> args = Args::parse(rest, {"recent"}, {"json", "help"});
  if (!args.ok()) {
    return usage_error(io,
                       fmt::format("store {}: {}", command, std::string(args.status().message())));
  }
  if (args->has("help")) {
    io.out << kStoreHelp;
    return kExitOk;
  }
  if (command == "inspect") return store_inspect(*args, io);
  if (command == "stream") return store_stream(*args, io);
  return usage_error(
      io, fmt::format("unknown store command '{}' (try: whizbang store --help)", command));
}

}  // namespace whizbang::cli
