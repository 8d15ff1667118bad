// whizbang perspective rebuild | status: an operator's side of perspective rebuilds
// (docs/perspectives.md, "Rebuild"). The tool has no perspective code: `rebuild` records a
// request (wh_perspective_rebuilds) that a running host of the service claims and runs (its
// PerspectiveRebuildWorker), and waits for it, printing its progress. `status` prints each
// perspective's lag, stored version and rebuild.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <thread>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cli/json_output.hpp"
#include "cli/store_support.hpp"
#include "cli/text_table.hpp"
#include "fmt/format.h"

namespace whizbang::cli {
namespace {

struct RebuildCommandOptions {
  StoreArgument store;
  std::string perspective;
  std::string streams;
  bool in_place = false;
  bool no_wait = false;
  std::int64_t timeout_seconds = 0;  // 0: wait as long as it runs
};

struct StatusCommandOptions {
  StoreArgument store;
  bool json = false;
};

void add_store_option(CLI::App& command, StoreArgument& store) {
  command
      .add_option("--store", store.file,
                  "the store: a SQLite file (or sqlite:PATH), a postgresql:// URI, or a libpq "
                  "key=value conninfo")
      ->type_name("LOCATION")
      ->required();
  command.add_flag("--pg", store.pg,
                   "LOCATION is a PostgreSQL conninfo (\"postgresql:\": WHIZBANG_PG_CONNINFO)");
}

std::string progress_line(const PerspectiveRebuildRow& row) {
  const double percent = row.events_total > 0 ? 100.0 * static_cast<double>(row.events_done) /
                                                    static_cast<double>(row.events_total)
                                              : (row.status == "done" ? 100.0 : 0.0);
  std::string eta = "-";
  if (row.events_per_second > 0) {
    const double left =
        static_cast<double>(std::max<std::int64_t>(0, row.events_total - row.events_done));
    eta = fmt::format("{:.0f}s", left / row.events_per_second);
  }
  return fmt::format("{} {}: {}/{} events ({:.1f}%), {:.0f} events/s, ETA {}", row.perspective_name,
                     row.status, row.events_done, row.events_total, percent, row.events_per_second,
                     eta);
}

std::optional<PerspectiveRebuildRow> find_rebuild(WorkStore& store, const std::string& name,
                                                  absl::Status& error) {
  absl::StatusOr<std::vector<PerspectiveRebuildRow>> rows = store.perspective_rebuilds();
  if (!rows.ok()) {
    error = rows.status();
    return std::nullopt;
  }
  for (const PerspectiveRebuildRow& row : *rows) {
    if (row.perspective_name == name) return row;
  }
  return std::nullopt;
}

int perspective_rebuild(const RebuildCommandOptions& options, const Io& io) {
  std::string streams;
  if (!options.streams.empty()) {
    for (absl::string_view part : absl::StrSplit(options.streams, ',', absl::SkipEmpty())) {
      absl::StatusOr<Uuid> stream = Uuid::parse(std::string_view(part.data(), part.size()));
      if (!stream.ok()) {
        return usage_error(io, fmt::format("--streams: '{}' is not a stream id",
                                           std::string_view(part.data(), part.size())));
      }
      if (!streams.empty()) streams.push_back(',');
      streams.append(stream->to_string());
    }
  }
  absl::StatusOr<std::unique_ptr<WorkStore>> store = open_writable(options.store);
  if (!store.ok()) return status_error(io, store.status());
  PerspectiveRebuildRow request;
  request.perspective_name = options.perspective;
  request.mode = options.in_place ? "in-place" : "blue-green";
  request.streams = streams;
  absl::StatusOr<bool> requested = (*store)->request_perspective_rebuild(request);
  if (!requested.ok()) return status_error(io, requested.status());
  io.out << (*requested ? "requested" : "already requested or running: following") << " rebuild of "
         << options.perspective << " (" << request.mode << ", "
         << (streams.empty() ? std::string("all streams") : "streams " + streams) << ")\n";
  if (options.no_wait) {
    io.out << "a running host of the service runs it; `whizbang perspective status` shows it\n";
    return kExitOk;
  }
  const absl::Time deadline = options.timeout_seconds > 0
                                  ? absl::Now() + absl::Seconds(options.timeout_seconds)
                                  : absl::InfiniteFuture();
  std::string last;
  while (true) {
    absl::Status error;
    std::optional<PerspectiveRebuildRow> row = find_rebuild(**store, options.perspective, error);
    if (!error.ok()) return status_error(io, error);
    if (!row) return status_error(io, absl::NotFoundError("the rebuild request is gone"));
    const std::string line = progress_line(*row);
    if (line != last) io.out << line << "\n" << std::flush;
    last = line;
    if (row->status == "done") return kExitOk;
    if (row->status == "failed") {
      io.err << "whizbang: rebuild of " << options.perspective
             << " failed: " << one_line(row->error) << "\n";
      return kExitFailure;
    }
    if (absl::Now() > deadline) {
      io.err << "whizbang: rebuild of " << options.perspective << " still " << row->status
             << " after " << options.timeout_seconds << "s (is a host of the service running?)\n";
      return kExitFailure;
    }
    // The tool polls the row the host writes: it has no other channel to the host.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int perspective_status(const StatusCommandOptions& options, const Io& io) {
  absl::StatusOr<std::unique_ptr<WorkStore>> store = open_writable(options.store);
  if (!store.ok()) return status_error(io, store.status());
  auto lag = (*store)->perspective_lag();
  if (!lag.ok()) return status_error(io, lag.status());
  auto versions = (*store)->perspective_versions();
  if (!versions.ok()) return status_error(io, versions.status());
  auto rebuilds = (*store)->perspective_rebuilds();
  if (!rebuilds.ok()) return status_error(io, rebuilds.status());
  std::set<std::string> names;
  std::map<std::string, const PerspectiveLag*> lags;
  std::map<std::string, const PerspectiveVersionRow*> built;
  std::map<std::string, const PerspectiveRebuildRow*> rebuild;
  for (const auto& row : *lag)
    names.insert(row.perspective_name), lags[row.perspective_name] = &row;
  for (const auto& row : *versions) {
    names.insert(row.perspective_name);
    built[row.perspective_name] = &row;
  }
  for (const auto& row : *rebuilds) {
    names.insert(row.perspective_name);
    rebuild[row.perspective_name] = &row;
  }
  const TimePoint now = std::chrono::system_clock::now();
  auto age_seconds = [&](const PerspectiveLag* l) -> std::optional<double> {
    if (l == nullptr || !l->oldest_pending) return std::nullopt;
    return std::chrono::duration<double>(now - *l->oldest_pending).count();
  };
  if (options.json) {
    JsonOutput json;
    json.writer().StartArray();
    for (const std::string& name : names) {
      const PerspectiveLag* l = lags.count(name) ? lags[name] : nullptr;
      json.writer().StartObject();
      json.key("perspective");
      json.string(name);
      json.key("pending_events");
      json.writer().Int64(l ? l->pending_events : 0);
      json.key("oldest_pending_age_seconds");
      if (auto age = age_seconds(l))
        json.writer().Double(*age);
      else
        json.writer().Null();
      json.key("version");
      if (built.count(name))
        json.writer().Uint(built[name]->version);
      else
        json.writer().Null();
      json.key("rebuild");
      if (const PerspectiveRebuildRow* r = rebuild.count(name) ? rebuild[name] : nullptr) {
        json.writer().StartObject();
        json.key("status");
        json.string(r->status);
        json.key("mode");
        json.string(r->mode);
        json.key("events_done");
        json.writer().Int64(r->events_done);
        json.key("events_total");
        json.writer().Int64(r->events_total);
        json.key("events_per_second");
        json.writer().Double(r->events_per_second);
        json.key("error");
        json.string(r->error);
        json.writer().EndObject();
      } else {
        json.writer().Null();
      }
      json.writer().EndObject();
    }
    json.writer().EndArray();
    io.out << json.str();
    return kExitOk;
  }
  if (names.empty()) {
    io.out << "no perspectives in this store yet\n";
    return kExitOk;
  }
  TextTable table({"PERSPECTIVE", "PENDING", "OLDEST PENDING", "VERSION", "REBUILD"});
  for (const std::string& name : names) {
    const PerspectiveLag* l = lags.count(name) ? lags[name] : nullptr;
    const auto age = age_seconds(l);
    table.add({name, std::to_string(l ? l->pending_events : 0),
               age ? fmt::format("{:.1f}s", *age) : std::string("-"),
               built.count(name) ? std::to_string(built[name]->version) : std::string("-"),
               rebuild.count(name) ? progress_line(*rebuild[name]) : std::string("-")});
  }
  table.print(io.out, "");
  return kExitOk;
}

}  // namespace

void add_perspective_commands(CommandTree& tree) {
  CLI::App* group = tree.add_group(tree.root(), "perspective",
                                   "rebuild a perspective's read models; their lag and versions");
  auto rebuild = std::make_shared<RebuildCommandOptions>();
  CLI::App* rebuild_command = tree.add_command(
      *group, "rebuild", "request a rebuild of a perspective from the event store and follow it",
      [rebuild](const Io& io) { return perspective_rebuild(*rebuild, io); });
  add_store_option(*rebuild_command, rebuild->store);
  rebuild_command->add_option("PERSPECTIVE", rebuild->perspective, "the perspective's name")
      ->type_name("")
      ->required();
  rebuild_command->add_option("--streams", rebuild->streams, "only these streams (id,id,...)")
      ->type_name("IDS");
  rebuild_command->add_flag("--in-place", rebuild->in_place,
                            "replace each stream's model as it goes (default: blue-green)");
  rebuild_command->add_flag("--no-wait", rebuild->no_wait, "record the request and return");
  rebuild_command->add_option("--timeout", rebuild->timeout_seconds, "give up waiting after N s")
      ->type_name("N")
      ->check(whole_number(1));
  rebuild_command->footer(
      "The tool records the request; a running host of the service (which has the perspective's\n"
      "code) claims it under a lease and runs it, and a host started with a newer perspective\n"
      "version runs a requested rebuild before it starts. Progress lines until done; exits 1\n"
      "when the rebuild failed.");

  auto status = std::make_shared<StatusCommandOptions>();
  CLI::App* status_command = tree.add_command(
      *group, "status", "per perspective: pending events, oldest pending, version, rebuild",
      [status](const Io& io) { return perspective_status(*status, io); });
  add_store_option(*status_command, status->store);
  status_command->add_flag("--json", status->json, "print a JSON document");
  status_command->footer(
      "Columns: perspective, pending perspective events, the oldest one's age, the version that\n"
      "built the stored models, the last rebuild (status, events done/total, percent, rate, ETA).\n"
      "Both commands open LOCATION as a service does (an older schema is migrated).");
}

}  // namespace whizbang::cli
