// whizbang store inspect: row counts (with the dead-lettered rows of each table) and the most
// recent rows of every table of a SQLite work store, read-only.
#include <algorithm>
#include <memory>
#include <ostream>

#include "cli/json_output.hpp"
#include "cli/store_support.hpp"
#include "cli/text_table.hpp"
#include "fmt/format.h"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"

namespace whizbang::cli {
namespace {

constexpr std::int64_t kDefaultRecent = 5;

// The tables that keep dead letters: schema version 5's, then any other the file has.
std::vector<std::string> dead_letter_tables(const StoreCounts& counts) {
  std::vector<std::string> tables = {"wh_outbox", "wh_inbox", "wh_perspective_events",
                                     "wh_lifecycle_completions", "wh_detached_work"};
  for (const auto& [table, count] : counts.dead_lettered) {
    if (std::find(tables.begin(), tables.end(), table) == tables.end()) tables.push_back(table);
  }
  return tables;
}

// "wh_perspective_events" -> "perspective_events" (the --json keys of `counts`).
std::string table_key(const std::string& table) {
  return table.rfind("wh_", 0) == 0 ? table.substr(3) : table;
}

// "wh_perspective_events" -> "perspective events" (the section titles).
std::string section_name(const std::string& table) {
  std::string name = table_key(table);
  std::replace(name.begin(), name.end(), '_', ' ');
  return name;
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
  // Dead-lettered rows per table: the four tables of schema version 5 always (0 before it), any
  // table a later schema adds when the file has it.
  json.key("dead_letters");
  w.StartObject();
  json.key("total");
  w.Int64(s.counts.dead_letters());
  for (const std::string& table : dead_letter_tables(s.counts)) {
    json.key(table_key(table));
    w.Int64(s.counts.dead_lettered_in(table));
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
                   const TextTable& table, std::int64_t dead_lettered = 0) {
  io.out << "\n" << title << ": " << count << (count == 1 ? " row" : " rows");
  std::string notes;
  if (dead_lettered > 0) notes = fmt::format("{} dead-lettered", dead_lettered);
  if (shown > 0 && static_cast<std::int64_t>(shown) < count) {
    notes += fmt::format("{}{} most recent", notes.empty() ? "" : ", ", shown);
  }
  if (!notes.empty()) io.out << " (" << notes << ")";
  io.out << "\n";
  if (!table.empty()) table.print(io.out, "  ");
}

void print_inspect_text(const Io& io, const SqliteStoreInspector& store, const Snapshot& s) {
  io.out << "store: " << store.path() << " (schema version " << store.schema_version() << ")\n";
  if (s.counts.dead_letters() > 0) {
    std::string tables;
    for (const std::string& table : dead_letter_tables(s.counts)) {
      const std::int64_t count = s.counts.dead_lettered_in(table);
      if (count == 0) continue;
      tables += fmt::format("{}{} {}", tables.empty() ? "" : ", ", section_name(table), count);
    }
    io.out << "dead letters: " << s.counts.dead_letters() << " (" << tables
           << "); list them with: whizbang store dead-letters " << store.path() << "\n";
  }

  TextTable outbox(
      {"MESSAGE ID", "TYPE", "DESTINATION", "STREAM", "STATUS", "ATTEMPTS", "CREATED AT", "ERROR"});
  for (const OutboxRow& row : s.outbox) {
    outbox.add({row.message.message_id.to_string(), row.message.message_type,
                or_dash(row.message.destination), or_dash(row.message.stream_id),
                status_text(row.state.status), std::to_string(row.state.attempts),
                format_time(row.state.created_at), or_dash(row.state.error)});
  }
  print_section(io, "outbox", s.counts.outbox, s.outbox.size(), outbox,
                s.counts.dead_lettered_in("wh_outbox"));
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
  print_section(io, "inbox", s.counts.inbox, s.inbox.size(), inbox,
                s.counts.dead_lettered_in("wh_inbox"));

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
                perspective, s.counts.dead_lettered_in("wh_perspective_events"));

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

}  // namespace

int store_inspect(const Args& args, const Io& io) {
  if (args.positional().size() != 1) return usage_error(io, "store inspect takes one FILE");
  std::int64_t recent = kDefaultRecent;
  if (args.has("recent")) {
    absl::StatusOr<std::int64_t> parsed = args.required_int("recent", 0);
    if (!parsed.ok()) return usage_error(io, parsed.status());
    if (*parsed > 1000000) return usage_error(io, "--recent must be <= 1000000");
    recent = *parsed;
  }
  absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> store =
      SqliteStoreInspector::open(args.positional()[0]);
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

}  // namespace whizbang::cli
