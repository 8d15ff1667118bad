// whizbang store inspect: row counts (with the dead-lettered rows of each table) and the most
// recent rows of every table of a SQLite work store, read-only.
#include <algorithm>
#include <memory>
#include <ostream>

#include "cli/json_output.hpp"
#include "cli/store_columns.hpp"
#include "cli/store_support.hpp"
#include "cli/text_table.hpp"
#include "fmt/format.h"
#include "whizbang/store/store_inspector.hpp"

namespace whizbang::cli {
namespace {

struct InspectOptions {
  StoreArgument store;
  std::int64_t recent = 5;
  bool json = false;
};

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

absl::StatusOr<Snapshot> read_snapshot(StoreInspector& store, int recent) {
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

void print_inspect_json(const Io& io, const StoreInspector& store, const Snapshot& s) {
  JsonOutput json;
  auto& w = json.writer();
  w.StartObject();
  json.key("file");
  json.string(store.location());
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
  write_objects(json, outbox_columns(), s.outbox);
  json.key("inbox");
  write_objects(json, inbox_columns(), s.inbox);
  json.key("event_store");
  write_objects(json, event_store_columns(), s.events);
  json.key("perspective_events");
  write_objects(json, perspective_event_columns(), s.perspective_events);
  json.key("receptor_invocations");
  write_objects(json, receptor_invocation_columns(), s.invocations);
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

void print_inspect_text(const Io& io, const StoreInspector& store, const Snapshot& s) {
  io.out << "store: " << store.location() << " (schema version " << store.schema_version() << ")\n";
  if (s.counts.dead_letters() > 0) {
    std::string tables;
    for (const std::string& table : dead_letter_tables(s.counts)) {
      const std::int64_t count = s.counts.dead_lettered_in(table);
      if (count == 0) continue;
      tables += fmt::format("{}{} {}", tables.empty() ? "" : ", ", section_name(table), count);
    }
    io.out << "dead letters: " << s.counts.dead_letters() << " (" << tables
           << "); list them with: whizbang store dead-letters " << store.location() << "\n";
  }

  print_section(io, "outbox", s.counts.outbox, s.outbox.size(),
                table_of(outbox_columns(), s.outbox), s.counts.dead_lettered_in("wh_outbox"));
  if (s.counts.outbox_tombstones > 0) {
    io.out << "  (+ " << s.counts.outbox_tombstones
           << " published and deleted, ids kept in wh_outbox_tombstones)\n";
  }
  print_section(io, "inbox", s.counts.inbox, s.inbox.size(), table_of(inbox_columns(), s.inbox),
                s.counts.dead_lettered_in("wh_inbox"));
  print_section(io, "event store", s.counts.event_store, s.events.size(),
                table_of(event_store_columns(), s.events));
  print_section(io, "perspective events", s.counts.perspective_events, s.perspective_events.size(),
                table_of(perspective_event_columns(), s.perspective_events),
                s.counts.dead_lettered_in("wh_perspective_events"));
  print_section(io, "receptor invocations", s.counts.receptor_invocations, s.invocations.size(),
                table_of(receptor_invocation_columns(), s.invocations));
}

int store_inspect(const InspectOptions& options, const Io& io) {
  absl::StatusOr<std::unique_ptr<StoreInspector>> store = open_for_reading(options.store, io);
  if (!store.ok()) return status_error(io, store.status());
  absl::StatusOr<Snapshot> snapshot = read_snapshot(**store, static_cast<int>(options.recent));
  if (!snapshot.ok()) return status_error(io, snapshot.status());
  if (options.json) {
    print_inspect_json(io, **store, *snapshot);
  } else {
    print_inspect_text(io, **store, *snapshot);
  }
  return kExitOk;
}

}  // namespace

void add_store_inspect_command(CommandTree& tree, CLI::App& store) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* inspect = tree.add_command(
      store, "inspect", "row counts, dead-lettered rows and the most recent rows of every table",
      [options](const Io& io) { return store_inspect(*options, io); });
  add_store_argument(*inspect, options->store);
  inspect->add_option("--recent", options->recent, "rows per table (default 5, 0 for counts only)")
      ->type_name("N")
      ->check(whole_number(0, 1000000));
  inspect->add_flag("--json", options->json, "print a JSON document");
  inspect->footer(fmt::format(
      "Tables: outbox, inbox, event store, perspective events, receptor invocation records.\n{}",
      kReadOnlyNote));
}

}  // namespace whizbang::cli
