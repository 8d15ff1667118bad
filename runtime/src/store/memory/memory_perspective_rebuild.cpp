// MemoryPerspectiveRebuild: the perspective-rebuild role on memory, as the SQL backends state it.
#include "memory/memory_perspective_rebuild.hpp"

#include <algorithm>
#include <set>

namespace whizbang {

namespace {

bool has_type(std::span<const std::string> types, const std::string& type) {
  return std::find(types.begin(), types.end(), type) != types.end();
}

}  // namespace

absl::StatusOr<std::vector<Uuid>> MemoryPerspectiveRebuild::perspective_streams(
    std::span<const std::string> event_types, const std::optional<Uuid>& after, std::size_t limit) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<Uuid>> {
    std::vector<Uuid> streams;
    auto it = after ? core_.state.streams.upper_bound(*after) : core_.state.streams.begin();
    for (; it != core_.state.streams.end() && streams.size() < limit; ++it) {
      for (const auto& [version, id] : it->second) {
        if (has_type(event_types, core_.state.events.at(id).event_type)) {
          streams.push_back(it->first);
          break;
        }
      }
    }
    return streams;
  });
}

absl::StatusOr<std::int64_t> MemoryPerspectiveRebuild::count_perspective_events(
    std::span<const std::string> event_types, std::span<const Uuid> streams) {
  return core_.gate.run([&]() -> absl::StatusOr<std::int64_t> {
    std::int64_t count = 0;
    for (const auto& [id, event] : core_.state.events) {
      if (!has_type(event_types, event.event_type)) continue;
      if (!streams.empty() &&
          std::find(streams.begin(), streams.end(), event.stream_id) == streams.end()) {
        continue;
      }
      ++count;
    }
    return count;
  });
}

absl::StatusOr<std::vector<StoredEvent>> MemoryPerspectiveRebuild::read_perspective_events(
    std::span<const Uuid> streams, std::span<const std::string> event_types) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<StoredEvent>> {
    std::vector<StoredEvent> events;
    for (const Uuid& stream : streams) {
      auto found = core_.state.streams.find(stream);
      if (found == core_.state.streams.end()) continue;
      for (const auto& [version, id] : found->second) {
        const StoredEvent& event = core_.state.events.at(id);
        if (has_type(event_types, event.event_type)) events.push_back(event);
      }
    }
    return events;
  });
}

void MemoryPerspectiveRebuild::complete_replayed(std::string_view perspective, const Uuid& stream,
                                                 std::int64_t version) {
  auto& rows = core_.state.perspective_events;
  std::set<MessageId> touched;
  for (auto it = rows.begin(); it != rows.end();) {
    const PerspectiveEventRow& row = it->second;
    if (row.stream_id == stream && row.perspective_name == perspective &&
        row.stream_version <= version) {
      touched.insert(row.event_id);
      it = rows.erase(it);
    } else {
      ++it;
    }
  }
  const TimePoint at = core_.now();
  for (const MessageId& event_id : touched) {
    const bool remains = std::any_of(rows.begin(), rows.end(), [&](const auto& entry) {
      return entry.second.event_id == event_id;
    });
    if (remains) continue;
    memory_store::LifecycleRow lifecycle;
    lifecycle.stream_id = stream;
    lifecycle.instance_id = core_.self();
    lifecycle.lease_expiry = at + core_.options.lease_duration;
    lifecycle.created_at = at;
    core_.state.lifecycle.try_emplace(event_id, std::move(lifecycle));
  }
}

absl::Status MemoryPerspectiveRebuild::complete_replayed_events(std::string_view perspective,
                                                                const Uuid& stream,
                                                                std::int64_t version) {
  return core_.gate.run([&]() -> absl::Status {
    complete_replayed(perspective, stream, version);
    return absl::OkStatus();
  });
}

absl::Status MemoryPerspectiveRebuild::record_shadow_stream(std::string_view shadow,
                                                            const Uuid& stream,
                                                            std::int64_t version) {
  return core_.gate.run([&]() -> absl::Status {
    core_.state.rebuild_streams[{std::string(shadow), stream}] = version;
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<Uuid>> MemoryPerspectiveRebuild::shadow_streams_behind(
    std::string_view shadow, std::span<const std::string> event_types,
    std::span<const Uuid> streams) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<Uuid>> {
    std::vector<Uuid> behind;
    for (const auto& [stream, versions] : core_.state.streams) {
      if (!streams.empty() && std::find(streams.begin(), streams.end(), stream) == streams.end()) {
        continue;
      }
      auto held = core_.state.rebuild_streams.find({std::string(shadow), stream});
      const std::int64_t through = held == core_.state.rebuild_streams.end() ? -1 : held->second;
      for (const auto& [version, id] : versions) {
        if (version > through && has_type(event_types, core_.state.events.at(id).event_type)) {
          behind.push_back(stream);
          break;
        }
      }
    }
    return behind;
  });
}

absl::Status MemoryPerspectiveRebuild::lock_perspective_models(std::string_view) {
  return absl::OkStatus();  // one writer at a time already
}

absl::Status MemoryPerspectiveRebuild::swap_shadow_models(std::string_view perspective,
                                                          std::string_view shadow,
                                                          std::span<const Uuid> streams) {
  return core_.gate.run([&]() -> absl::Status {
    auto& models = core_.state.perspective_models;
    for (auto it = models.begin(); it != models.end();) {
      const bool in_scope = streams.empty() || std::find(streams.begin(), streams.end(),
                                                         it->first.second) != streams.end();
      it = it->first.first == perspective && in_scope ? models.erase(it) : std::next(it);
    }
    for (auto it = models.begin(); it != models.end();) {
      if (it->first.first != shadow) {
        ++it;
        continue;
      }
      models[{std::string(perspective), it->first.second}] = it->second;
      it = models.erase(it);
    }
    auto& covered = core_.state.rebuild_streams;
    for (auto it = covered.begin(); it != covered.end();) {
      if (it->first.first != shadow) {
        ++it;
        continue;
      }
      complete_replayed(perspective, it->first.second, it->second);
      it = covered.erase(it);
    }
    return absl::OkStatus();
  });
}

absl::Status MemoryPerspectiveRebuild::drop_perspective_models(std::string_view perspective) {
  return core_.gate.run([&]() -> absl::Status {
    std::erase_if(core_.state.perspective_models,
                  [&](const auto& entry) { return entry.first.first == perspective; });
    std::erase_if(core_.state.rebuild_streams,
                  [&](const auto& entry) { return entry.first.first == perspective; });
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> MemoryPerspectiveRebuild::has_perspective_models(
    std::string_view perspective) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    return std::any_of(core_.state.perspective_models.begin(), core_.state.perspective_models.end(),
                       [&](const auto& entry) { return entry.first.first == perspective; });
  });
}

absl::StatusOr<bool> MemoryPerspectiveRebuild::request_perspective_rebuild(
    const PerspectiveRebuildRow& row) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    auto found = core_.state.rebuilds.find(row.perspective_name);
    if (found != core_.state.rebuilds.end() &&
        (found->second.status == "requested" || found->second.status == "running")) {
      return false;
    }
    PerspectiveRebuildRow fresh;
    fresh.perspective_name = row.perspective_name;
    fresh.mode = row.mode;
    fresh.streams = row.streams;
    fresh.status = "requested";
    fresh.requested_at = fresh.updated_at = core_.now();
    core_.state.rebuilds[row.perspective_name] = std::move(fresh);
    return true;
  });
}

absl::StatusOr<std::optional<PerspectiveRebuildRow>>
MemoryPerspectiveRebuild::claim_perspective_rebuild(std::span<const std::string> perspectives,
                                                    std::chrono::milliseconds lease) {
  return core_.gate.run([&]() -> absl::StatusOr<std::optional<PerspectiveRebuildRow>> {
    const TimePoint at = core_.now();
    for (const std::string& name : perspectives) {
      auto found = core_.state.rebuilds.find(name);
      if (found == core_.state.rebuilds.end()) continue;
      PerspectiveRebuildRow& row = found->second;
      const bool claimable =
          row.status == "requested" ||
          (row.status == "running" && core_.free(row.instance_id, row.lease_expiry, at));
      if (!claimable) continue;
      row.status = "running";
      row.instance_id = core_.self();
      row.lease_expiry = at + lease;
      if (!row.started_at) row.started_at = at;
      row.updated_at = at;
      return std::optional<PerspectiveRebuildRow>(row);
    }
    return std::optional<PerspectiveRebuildRow>();
  });
}

absl::StatusOr<bool> MemoryPerspectiveRebuild::save_perspective_rebuild(
    const PerspectiveRebuildRow& row, std::chrono::milliseconds lease) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    auto found = core_.state.rebuilds.find(row.perspective_name);
    if (found == core_.state.rebuilds.end() || found->second.instance_id != core_.self()) {
      return false;
    }
    PerspectiveRebuildRow& stored = found->second;
    const TimePoint at = core_.now();
    stored.status = row.status;
    stored.checkpoint = row.checkpoint;
    stored.events_done = row.events_done;
    stored.events_total = row.events_total;
    stored.streams_done = row.streams_done;
    stored.events_per_second = row.events_per_second;
    stored.error = row.error;
    stored.lease_expiry = at + lease;
    stored.updated_at = at;
    return true;
  });
}

absl::StatusOr<std::vector<PerspectiveRebuildRow>>
MemoryPerspectiveRebuild::perspective_rebuilds() {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveRebuildRow>> {
    std::vector<PerspectiveRebuildRow> rows;
    for (const auto& [name, row] : core_.state.rebuilds) rows.push_back(row);
    return rows;
  });
}

absl::StatusOr<std::vector<PerspectiveVersionRow>>
MemoryPerspectiveRebuild::perspective_versions() {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveVersionRow>> {
    std::vector<PerspectiveVersionRow> rows;
    for (const auto& [name, row] : core_.state.perspective_versions) rows.push_back(row);
    return rows;
  });
}

absl::Status MemoryPerspectiveRebuild::set_perspective_version(std::string_view perspective,
                                                               std::uint32_t version) {
  return core_.gate.run([&]() -> absl::Status {
    core_.state.perspective_versions[std::string(perspective)] =
        PerspectiveVersionRow{std::string(perspective), version, core_.now()};
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<PerspectiveLag>> MemoryPerspectiveRebuild::perspective_lag() {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveLag>> {
    std::map<std::string, PerspectiveLag> lag;
    for (const auto& [key, row] : core_.state.perspective_events) {
      if (row.dead_lettered_at) continue;
      PerspectiveLag& entry = lag[row.perspective_name];
      entry.perspective_name = row.perspective_name;
      ++entry.pending_events;
    }
    std::vector<PerspectiveLag> rows;
    for (auto& [name, entry] : lag) rows.push_back(std::move(entry));
    return rows;
  });
}

}  // namespace whizbang
