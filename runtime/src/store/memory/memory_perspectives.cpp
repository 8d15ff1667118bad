// MemoryWorkStore: perspective work (stream-ordered claims, completion with the WhenAll check,
// failure) and lifecycle completions.
#include <algorithm>

#include "memory/memory_store_impl.hpp"

namespace whizbang {

absl::StatusOr<std::vector<PerspectiveWork>> MemoryWorkStore::claim_perspective_work(
    std::size_t max_items) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveWork>> {
    const TimePoint at = impl_->now();
    // Keyed (stream, perspective, version): the map's order is the claim order, and a (stream,
    // perspective) is held back from its first live row that waits elsewhere.
    std::vector<PerspectiveEventRow*> eligible;
    std::set<std::pair<Uuid, std::string>> held_back;
    for (auto& [key, row] : impl_->state.perspective_events) {
      if (row.dead_lettered_at) continue;
      const std::pair<Uuid, std::string> lane{row.stream_id, row.perspective_name};
      if (held_back.contains(lane)) continue;
      if (impl_->waits_elsewhere(row.instance_id, row.lease_expiry, row.scheduled_for, at)) {
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
      row->instance_id = impl_->self();
      row->lease_expiry = at + impl_->options.lease_duration;
      const StoredEvent& event = impl_->state.events.at(row->event_id);
      work.push_back({row->event_work_id, row->stream_id, row->perspective_name, row->event_id,
                      event.event_type, event.event_data, event.metadata, event.version,
                      row->attempts});
    }
    return work;
  });
}

absl::StatusOr<PerspectiveCompletion> MemoryWorkStore::complete_perspective_work(
    std::span<const MessageId> event_work_ids) {
  return impl_->gate.run([&]() -> absl::StatusOr<PerspectiveCompletion> {
    auto& rows = impl_->state.perspective_events;
    std::vector<std::pair<MessageId, Uuid>> touched;  // (event, stream)
    PerspectiveCompletion completion;
    for (const MessageId& work_id : event_work_ids) {
      auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& entry) {
        return entry.second.event_work_id == work_id;
      });
      // Already completed, or claimed by another instance after this one's lease lapsed.
      if (it == rows.end() || !impl_->owned(it->second.instance_id)) continue;
      touched.emplace_back(it->second.event_id, it->second.stream_id);
      rows.erase(it);
      completion.work_completed.push_back(work_id);
    }
    const TimePoint at = impl_->now();
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
      lifecycle.instance_id = impl_->self();
      lifecycle.lease_expiry = at + impl_->options.lease_duration;
      lifecycle.created_at = at;
      impl_->state.lifecycle.try_emplace(event_id, std::move(lifecycle));
      completion.events_completed.push_back(event_id);
    }
    return completion;
  });
}

absl::Status MemoryWorkStore::fail_perspective_work(const MessageId& event_work_id,
                                                    std::string_view error, bool dead_letter) {
  return impl_->gate.run([&]() -> absl::Status {
    for (auto& [key, row] : impl_->state.perspective_events) {
      if (row.event_work_id != event_work_id || !impl_->owned(row.instance_id)) continue;
      row.status |= 32768;  // Failed
      impl_->fail({row.attempts, row.error, row.failure_reason, row.instance_id, row.lease_expiry,
                   row.scheduled_for, row.dead_lettered_at},
                  "wh_perspective_events", event_work_id, row.perspective_name, row.stream_id,
                  error, FailureReason::Unknown, dead_letter);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<LifecycleWork>> MemoryWorkStore::claim_lifecycle_work(
    std::size_t max_items) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<LifecycleWork>> {
    const TimePoint at = impl_->now();
    std::vector<LifecycleWork> work;
    for (auto& [event_id, row] : impl_->state.lifecycle) {
      if (work.size() == max_items) break;
      if (row.dead_lettered_at || (row.scheduled_for && *row.scheduled_for > at) ||
          !impl_->free(row.instance_id, row.lease_expiry, at)) {
        continue;
      }
      row.instance_id = impl_->self();
      row.lease_expiry = at + impl_->options.lease_duration;
      const StoredEvent& event = impl_->state.events.at(event_id);
      work.push_back({event_id, row.stream_id, event.event_type, event.event_data, event.metadata,
                      row.attempts});
    }
    return work;
  });
}

absl::StatusOr<bool> MemoryWorkStore::renew_lifecycle_work(const MessageId& event_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<bool> {
    auto it = impl_->state.lifecycle.find(event_id);
    if (it == impl_->state.lifecycle.end() || it->second.dead_lettered_at ||
        it->second.instance_id != impl_->self()) {
      return false;
    }
    it->second.lease_expiry = impl_->now() + impl_->options.lease_duration;
    return true;
  });
}

absl::Status MemoryWorkStore::complete_lifecycle_work(const MessageId& event_id) {
  return impl_->gate.run([&]() -> absl::Status {
    auto it = impl_->state.lifecycle.find(event_id);
    if (it != impl_->state.lifecycle.end() && impl_->owned(it->second.instance_id)) {
      impl_->state.lifecycle.erase(it);
    }
    return absl::OkStatus();
  });
}

absl::Status MemoryWorkStore::fail_lifecycle_work(const MessageId& event_id, std::string_view error,
                                                  bool dead_letter) {
  return impl_->gate.run([&]() -> absl::Status {
    auto it = impl_->state.lifecycle.find(event_id);
    if (it == impl_->state.lifecycle.end() || !impl_->owned(it->second.instance_id)) {
      return absl::OkStatus();
    }
    memory_store::LifecycleRow& row = it->second;
    impl_->fail({row.attempts, row.error, row.failure_reason, row.instance_id, row.lease_expiry,
                 row.scheduled_for, row.dead_lettered_at},
                "wh_lifecycle_completions", event_id, "PostLifecycle", row.stream_id, error,
                FailureReason::Unknown, dead_letter);
    return absl::OkStatus();
  });
}

}  // namespace whizbang
