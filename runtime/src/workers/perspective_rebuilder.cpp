#include "whizbang/workers/perspective_rebuilder.hpp"

#include <algorithm>
#include <map>

#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "perspective_rebuild_replay.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::vector<std::string> event_types_of(const PerspectiveInfo& perspective) {
  std::vector<std::string> types;
  for (const MessageTypeInfo* event : perspective.events) types.emplace_back(event->wire_name);
  return types;
}

std::string join_streams(const std::vector<Uuid>& streams) {
  std::string joined;
  for (const Uuid& stream : streams) {
    if (!joined.empty()) joined.push_back(',');
    joined.append(stream.to_string());
  }
  return joined;
}

absl::StatusOr<std::vector<Uuid>> parse_streams(std::string_view text) {
  std::vector<Uuid> streams;
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ',', absl::SkipEmpty())) {
    absl::StatusOr<Uuid> stream = Uuid::parse(std::string_view(part.data(), part.size()));
    if (!stream.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("stream '{}' is not a uuid", std::string_view(part.data(), part.size())));
    }
    streams.push_back(*stream);
  }
  std::sort(streams.begin(), streams.end());
  streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
  return streams;
}

RebuildProgress progress_of(const PerspectiveRebuildRow& row) {
  return {row.perspective_name, row.events_done, row.events_total, row.streams_done,
          row.events_per_second};
}

}  // namespace

std::string_view to_string(RebuildMode mode) {
  return mode == RebuildMode::InPlace ? "in-place" : "blue-green";
}

double RebuildProgress::ratio() const {
  if (events_total <= 0) return 1.0;
  return std::min(1.0, static_cast<double>(events_done) / static_cast<double>(events_total));
}

std::optional<std::chrono::seconds> RebuildProgress::eta() const {
  if (events_per_second <= 0) return std::nullopt;
  const double left = static_cast<double>(std::max<std::int64_t>(0, events_total - events_done));
  return std::chrono::seconds(static_cast<std::int64_t>(left / events_per_second + 0.5));
}

std::string PerspectiveRebuilder::shadow_name(std::string_view perspective) {
  std::string name(perspective);
  name.append("#rebuild");
  return name;
}

absl::StatusOr<std::unique_ptr<PerspectiveRebuilder>> PerspectiveRebuilder::create(
    const Registry& registry, const ServiceRegistry& services, WorkStore& store,
    std::shared_ptr<spdlog::logger> logger, ReceptorInvoker* stages) {
  absl::StatusOr<ReceptorSet> instances = registry.create_perspectives(services);
  if (!instances.ok()) return instances.status();
  return std::unique_ptr<PerspectiveRebuilder>(
      new PerspectiveRebuilder(registry, *std::move(instances), store, std::move(logger), stages));
}

PerspectiveRebuilder::PerspectiveRebuilder(const Registry& registry, ReceptorSet instances,
                                           WorkStore& store, std::shared_ptr<spdlog::logger> logger,
                                           ReceptorInvoker* stages)
    : registry_(registry),
      instances_(std::move(instances)),
      store_(store),
      logger_(std::move(logger)),
      stages_(stages) {}

absl::StatusOr<RebuildResult> PerspectiveRebuilder::rebuild(std::string_view perspective,
                                                            RebuildOptions options) {
  if (registry_.find_perspective(perspective) == nullptr) {
    return absl::NotFoundError(fmt::format("no perspective {} in this registry", perspective));
  }
  PerspectiveRebuildRow request;
  request.perspective_name = std::string(perspective);
  request.mode = std::string(to_string(options.mode));
  std::sort(options.streams.begin(), options.streams.end());
  request.streams = join_streams(options.streams);
  // False when one is requested or running already: claiming it below resumes it.
  if (absl::StatusOr<bool> requested = store_.request_perspective_rebuild(request);
      !requested.ok()) {
    return requested.status();
  }
  const std::string name(perspective);
  absl::StatusOr<std::optional<PerspectiveRebuildRow>> claimed =
      store_.claim_perspective_rebuild(std::span<const std::string>(&name, 1), options.lease);
  if (!claimed.ok()) return claimed.status();
  if (!*claimed) {
    std::string holder = "another instance";
    if (auto rows = store_.perspective_rebuilds(); rows.ok()) {
      for (const PerspectiveRebuildRow& row : *rows) {
        if (row.perspective_name == name && row.instance_id) {
          holder = fmt::format("instance {}", *row.instance_id);
        }
      }
    }
    return absl::UnavailableError(fmt::format(
        "perspective {} is being rebuilt by {}; it holds the rebuild's lease", name, holder));
  }
  return run(**std::move(claimed), options);
}

absl::StatusOr<std::optional<RebuildResult>> PerspectiveRebuilder::run_requested(
    const RebuildOptions& options) {
  std::vector<std::string> names;
  for (const PerspectiveInfo& perspective : registry_.perspectives()) {
    names.emplace_back(perspective.name);
  }
  if (names.empty()) return std::optional<RebuildResult>();
  absl::StatusOr<std::optional<PerspectiveRebuildRow>> claimed =
      store_.claim_perspective_rebuild(names, options.lease);
  if (!claimed.ok()) return claimed.status();
  if (!*claimed) return std::optional<RebuildResult>();
  absl::StatusOr<RebuildResult> result = run(**std::move(claimed), options);
  if (!result.ok()) return result.status();
  return std::optional<RebuildResult>(*result);
}

absl::StatusOr<RebuildResult> PerspectiveRebuilder::run(PerspectiveRebuildRow row,
                                                        const RebuildOptions& options) {
  const PerspectiveInfo* info = registry_.find_perspective(row.perspective_name);
  if (info == nullptr) {
    return absl::NotFoundError(
        fmt::format("no perspective {} in this registry", row.perspective_name));
  }
  void* instance = instances_.get(info->index);
  const bool in_place = row.mode == "in-place";
  const std::string live(info->name);
  const std::string shadow = shadow_name(info->name);
  const std::string& target = in_place ? live : shadow;
  const std::vector<std::string> types = event_types_of(*info);
  const std::size_t batch = std::max<std::size_t>(1, options.batch_streams);
  RebuildResult result;
  result.resumed = row.checkpoint.has_value();

  // Marks the row failed (outside the batch's rolled-back transaction) and passes the error on.
  auto fail = [&](const absl::Status& status) -> absl::Status {
    log(logger_, spdlog::level::warn, log_events::kPerspectiveRebuildFailed,
        "rebuild of perspective {} failed: {}", live, status.ToString());
    row.status = "failed";
    row.error = status.ToString();
    (void)store_.save_perspective_rebuild(row, options.lease);
    return status;
  };
  absl::StatusOr<std::vector<Uuid>> selected = parse_streams(row.streams);
  if (!selected.ok()) return fail(selected.status());

  if (!result.resumed) {
    // A fresh start: nothing of an earlier shadow is kept.
    if (!in_place) {
      if (absl::Status status = store_.drop_perspective_models(shadow); !status.ok()) {
        return fail(status);
      }
    }
    absl::StatusOr<std::int64_t> total = store_.count_perspective_events(types, *selected);
    if (!total.ok()) return fail(total.status());
    row.events_total = *total;
    row.events_done = 0;
    row.streams_done = 0;
  }

  // Replays `streams` into `into` in the caller's transaction; the shadow records what it holds.
  auto replay = [&](std::span<const Uuid> streams, const std::string& into,
                    bool live_completes) -> absl::StatusOr<std::int64_t> {
    absl::StatusOr<std::vector<StoredEvent>> events =
        store_.read_perspective_events(streams, types);
    if (!events.ok()) return events.status();
    std::int64_t applied = 0;
    auto first = events->begin();
    for (const Uuid& stream : streams) {
      if (live_completes) {
        // PostgreSQL: the live apply's lock on (perspective, stream), held to the commit.
        if (auto loaded = store_.load_perspective_model(live, stream); !loaded.ok()) {
          return loaded.status();
        }
      }
      auto last = std::find_if(first, events->end(),
                               [&](const StoredEvent& event) { return event.stream_id != stream; });
      absl::StatusOr<rebuild_internal::ReplayedStream> replayed =
          rebuild_internal::replay_stream(registry_, *info, instance, store_, into, stream,
                                          std::span<const StoredEvent>(first, last), stages_);
      first = last;
      if (!replayed.ok()) return replayed.status();
      applied += replayed->events;
      const absl::Status recorded =
          live_completes ? store_.complete_replayed_events(live, stream, replayed->through_version)
                         : store_.record_shadow_stream(into, stream, replayed->through_version);
      if (!recorded.ok()) return recorded;
    }
    return applied;
  };

  const SteadyClock::time_point started = SteadyClock::now();
  std::int64_t done_here = 0;
  std::optional<Uuid> after = row.checkpoint;
  while (true) {
    std::vector<Uuid> streams;
    if (selected->empty()) {
      absl::StatusOr<std::vector<Uuid>> page = store_.perspective_streams(types, after, batch);
      if (!page.ok()) return fail(page.status());
      streams = *std::move(page);
    } else {
      auto from =
          after ? std::upper_bound(selected->begin(), selected->end(), *after) : selected->begin();
      const auto count =
          std::min<std::size_t>(batch, static_cast<std::size_t>(selected->end() - from));
      streams.assign(from, from + static_cast<std::ptrdiff_t>(count));
    }
    if (streams.empty()) break;
    Transaction tx(store_);
    if (!tx.status().ok()) return fail(tx.status());
    absl::StatusOr<std::int64_t> applied = replay(streams, target, in_place);
    if (!applied.ok()) return fail(applied.status());
    done_here += *applied;
    row.events_done += *applied;
    row.streams_done += static_cast<std::int64_t>(streams.size());
    row.checkpoint = streams.back();
    const double seconds = std::chrono::duration<double>(SteadyClock::now() - started).count();
    row.events_per_second = seconds > 0 ? static_cast<double>(done_here) / seconds : 0;
    // The checkpoint commits with the batch's models; a lost lease rolls both back.
    absl::StatusOr<bool> held = store_.save_perspective_rebuild(row, options.lease);
    if (!held.ok()) return fail(held.status());
    if (!*held) {
      return absl::AbortedError(
          fmt::format("rebuild of perspective {}: another instance took the rebuild over", live));
    }
    if (absl::Status status = tx.commit(); !status.ok()) return fail(status);
    result.events_applied += *applied;
    result.streams_rebuilt += static_cast<std::int64_t>(streams.size());
    after = streams.back();
    if (options.progress) options.progress(progress_of(row));
  }

  // The end: blue-green swaps after catching up what arrived meanwhile; both record the version.
  Transaction tx(store_);
  if (!tx.status().ok()) return fail(tx.status());
  if (!in_place) {
    if (absl::Status status = store_.lock_perspective_models(live); !status.ok()) {
      return fail(status);
    }
    absl::StatusOr<std::vector<Uuid>> behind =
        store_.shadow_streams_behind(shadow, types, *selected);
    if (!behind.ok()) return fail(behind.status());
    for (std::size_t at = 0; at < behind->size(); at += batch) {
      const std::size_t count = std::min(batch, behind->size() - at);
      absl::StatusOr<std::int64_t> applied =
          replay(std::span<const Uuid>(behind->data() + at, count), shadow, false);
      if (!applied.ok()) return fail(applied.status());
      result.streams_caught_up += static_cast<std::int64_t>(count);
    }
    if (absl::Status status = store_.swap_shadow_models(live, shadow, *selected); !status.ok()) {
      return fail(status);
    }
  }
  if (absl::Status status = store_.set_perspective_version(live, info->version); !status.ok()) {
    return fail(status);
  }
  row.status = "done";
  row.events_done = std::max(row.events_done, row.events_total);
  absl::StatusOr<bool> held = store_.save_perspective_rebuild(row, options.lease);
  if (!held.ok()) return fail(held.status());
  if (!*held) {
    return absl::AbortedError(
        fmt::format("rebuild of perspective {}: another instance took the rebuild over", live));
  }
  if (absl::Status status = tx.commit(); !status.ok()) return fail(status);
  log(logger_, spdlog::level::info, log_events::kPerspectiveRebuilt,
      "perspective {} rebuilt ({}): {} events over {} streams", live, row.mode,
      result.events_applied, result.streams_rebuilt);
  if (options.progress) options.progress(progress_of(row));
  return result;
}

}  // namespace whizbang
