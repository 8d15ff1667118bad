// MemoryPerspectives: the perspective role (perspective events, models, associations) on memory.
#include "memory/memory_perspectives.hpp"

#include <algorithm>
#include <cctype>

#include "memory/memory_core.hpp"

namespace whizbang {

absl::StatusOr<std::vector<PerspectiveWork>> MemoryPerspectives::claim_perspective_work(
    std::size_t max_items) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveWork>> {
    const TimePoint at = core_.now();
    // Keyed (stream, perspective, version): the map's order is the claim order, and a (stream,
    // perspective) is held back from its first live row that waits elsewhere.
    std::vector<PerspectiveEventRow*> eligible;
    std::set<std::pair<Uuid, std::string>> held_back;
    for (auto& [key, row] : core_.state.perspective_events) {
      if (row.dead_lettered_at) continue;
      const std::pair<Uuid, std::string> lane{row.stream_id, row.perspective_name};
      if (held_back.contains(lane)) continue;
      if (core_.waits_elsewhere(row.instance_id, row.lease_expiry, row.scheduled_for, at)) {
        held_back.insert(lane);
        continue;
      }
      eligible.push_back(&row);
    }
    std::stable_sort(eligible.begin(), eligible.end(), [](const auto* a, const auto* b) {
      return std::tie(a->stream_id, a->stream_version, a->perspective_name) <
             std::tie(b->stream_id, b->stream_version, b->perspective_name);
    });
    if (eligible.size() > max_items) eligible.resize(max_items);
    std::vector<PerspectiveWork> work;
    for (PerspectiveEventRow* row : eligible) {
      row->instance_id = core_.self();
      row->lease_expiry = at + core_.options.lease_duration;
      const StoredEvent& event = core_.state.events.at(row->event_id);
      work.push_back({row->event_work_id, row->stream_id, row->perspective_name, row->event_id,
                      event.event_type, event.event_data, event.metadata, event.version,
                      row->attempts});
    }
    return work;
  });
}

absl::StatusOr<PerspectiveCompletion> MemoryPerspectives::complete_perspective_work(
    std::span<const MessageId> event_work_ids) {
  return core_.gate.run([&]() -> absl::StatusOr<PerspectiveCompletion> {
    auto& rows = core_.state.perspective_events;
    std::vector<std::pair<MessageId, Uuid>> touched;  // (event, stream)
    PerspectiveCompletion completion;
    for (const MessageId& work_id : event_work_ids) {
      auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& entry) {
        return entry.second.event_work_id == work_id;
      });
      // Already completed, or claimed by another instance after this one's lease lapsed.
      if (it == rows.end() || !core_.owned(it->second.instance_id)) continue;
      touched.emplace_back(it->second.event_id, it->second.stream_id);
      rows.erase(it);
      completion.work_completed.push_back(work_id);
    }
    const TimePoint at = core_.now();
    for (const auto& [event_id, stream_id] : touched) {
      const bool remains = std::any_of(rows.begin(), rows.end(), [&](const auto& entry) {
        return entry.second.event_id == event_id;
      });
      if (remains ||
          std::find(completion.events_completed.begin(), completion.events_completed.end(),
                    event_id) != completion.events_completed.end()) {
        continue;
      }
      // The gate opened: its stages are owed until they succeed (claim_lifecycle_work).
      memory_store::LifecycleRow lifecycle;
      lifecycle.stream_id = stream_id;
      lifecycle.instance_id = core_.self();
      lifecycle.lease_expiry = at + core_.options.lease_duration;
      lifecycle.created_at = at;
      core_.state.lifecycle.try_emplace(event_id, std::move(lifecycle));
      completion.events_completed.push_back(event_id);
    }
    // Read-your-writes waits wake on it (here and, on PostgreSQL, in other processes).
    if (!completion.work_completed.empty()) core_.gate.note({.perspectives_written = true});
    return completion;
  });
}

absl::Status MemoryPerspectives::fail_perspective_work(const MessageId& event_work_id,
                                                       std::string_view error, bool dead_letter,
                                                       const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    core_.gate.note({.perspectives_written = true});  // a dead letter ends a wait
    for (auto& [key, row] : core_.state.perspective_events) {
      if (row.event_work_id != event_work_id || !core_.owned(row.instance_id)) continue;
      row.status |= 32768;  // Failed
      core_.fail({row.attempts, row.error, row.failure_reason, row.instance_id, row.lease_expiry,
                  row.scheduled_for, row.dead_lettered_at},
                 "wh_perspective_events", event_work_id, row.perspective_name, row.stream_id, error,
                 FailureReason::Unknown, dead_letter, retry);
    }
    return absl::OkStatus();
  });
}

absl::Status MemoryPerspectives::add_perspective_association(std::string_view message_type,
                                                             std::string_view perspective) {
  return core_.gate.run([&]() -> absl::Status {
    auto [first, last] =
        core_.state.perspective_associations.equal_range(std::string(message_type));
    for (auto it = first; it != last; ++it) {
      if (it->second == perspective) return absl::OkStatus();
    }
    core_.state.perspective_associations.emplace(message_type, perspective);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<PerspectiveModelRow>> MemoryPerspectives::load_perspective_model(
    std::string_view perspective, const Uuid& stream_id) {
  return core_.gate.run([&]() -> absl::StatusOr<std::optional<PerspectiveModelRow>> {
    auto it = core_.state.perspective_models.find({std::string(perspective), stream_id});
    if (it == core_.state.perspective_models.end()) return std::optional<PerspectiveModelRow>();
    return std::optional<PerspectiveModelRow>(it->second);
  });
}

absl::Status MemoryPerspectives::save_perspective_model(std::string_view perspective,
                                                        const Uuid& stream_id,
                                                        std::string_view model_json,
                                                        const MessageId& last_event_id) {
  return core_.gate.run([&]() -> absl::Status {
    core_.state.perspective_models[{std::string(perspective), stream_id}] =
        PerspectiveModelRow{std::string(model_json), last_event_id, core_.now()};
    return absl::OkStatus();
  });
}

}  // namespace whizbang
