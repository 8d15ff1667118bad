// MemoryStageWork: the stage-work role (lifecycle completions, detached work) on memory.
#include "memory/memory_stage_work.hpp"

#include <algorithm>

#include "memory/memory_core.hpp"

namespace whizbang {

absl::Status MemoryStageWork::store_detached_work(const DetachedWork& work) {
  return core_.gate.run([&]() -> absl::Status {
    memory_store::DetachedRow row;
    row.work = work;
    row.work.attempts = 0;
    row.instance_id = core_.self();
    row.lease_expiry = core_.now() + core_.options.lease_duration;
    if (!core_.state.detached.emplace(work.work_id, std::move(row)).second) {
      return absl::AlreadyExistsError("detached work " + work.work_id.to_string() + " exists");
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<DetachedWork>> MemoryStageWork::claim_detached_work(
    std::size_t max_items) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<DetachedWork>> {
    const TimePoint at = core_.now();
    std::vector<DetachedWork> work;
    for (auto& [id, row] : core_.state.detached) {
      if (work.size() == max_items) break;
      // Not work leased to this instance: that is on its way through this process's executor.
      const bool lapsed = row.instance_id && row.lease_expiry && *row.lease_expiry < at;
      if (row.dead_lettered_at || (row.scheduled_for && *row.scheduled_for > at) ||
          (row.instance_id && !lapsed)) {
        continue;
      }
      row.instance_id = core_.self();
      row.lease_expiry = at + core_.options.lease_duration;
      work.push_back(row.work);
    }
    return work;
  });
}

absl::StatusOr<bool> MemoryStageWork::complete_detached_work(const MessageId& work_id) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    auto it = core_.state.detached.find(work_id);
    // Only under this instance's own lease (see sql::kDeleteDetachedWork).
    if (it == core_.state.detached.end() || it->second.dead_lettered_at ||
        it->second.instance_id != core_.self()) {
      return false;
    }
    core_.state.detached.erase(it);
    return true;
  });
}

absl::Status MemoryStageWork::fail_detached_work(const MessageId& work_id, std::string_view error,
                                                 bool dead_letter,
                                                 const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    auto it = core_.state.detached.find(work_id);
    if (it == core_.state.detached.end() || !core_.owned(it->second.instance_id)) {
      return absl::OkStatus();
    }
    memory_store::DetachedRow& row = it->second;
    core_.fail({row.work.attempts, row.error, row.failure_reason, row.instance_id, row.lease_expiry,
                row.scheduled_for, row.dead_lettered_at},
               "wh_detached_work", work_id, row.work.message_type, std::nullopt, error,
               FailureReason::Unknown, dead_letter, retry);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<LifecycleWork>> MemoryStageWork::claim_lifecycle_work(
    std::size_t max_items) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<LifecycleWork>> {
    const TimePoint at = core_.now();
    std::vector<LifecycleWork> work;
    for (auto& [event_id, row] : core_.state.lifecycle) {
      if (work.size() == max_items) break;
      if (row.dead_lettered_at || (row.scheduled_for && *row.scheduled_for > at) ||
          !core_.free(row.instance_id, row.lease_expiry, at)) {
        continue;
      }
      row.instance_id = core_.self();
      row.lease_expiry = at + core_.options.lease_duration;
      const StoredEvent& event = core_.state.events.at(event_id);
      work.push_back({event_id, row.stream_id, event.event_type, event.event_data, event.metadata,
                      row.attempts});
    }
    return work;
  });
}

absl::StatusOr<bool> MemoryStageWork::renew_lifecycle_work(const MessageId& event_id) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    auto it = core_.state.lifecycle.find(event_id);
    if (it == core_.state.lifecycle.end() || it->second.dead_lettered_at ||
        it->second.instance_id != core_.self()) {
      return false;
    }
    it->second.lease_expiry = core_.now() + core_.options.lease_duration;
    return true;
  });
}

absl::Status MemoryStageWork::complete_lifecycle_work(const MessageId& event_id) {
  return core_.gate.run([&]() -> absl::Status {
    auto it = core_.state.lifecycle.find(event_id);
    if (it != core_.state.lifecycle.end() && core_.owned(it->second.instance_id)) {
      core_.state.lifecycle.erase(it);
    }
    return absl::OkStatus();
  });
}

absl::Status MemoryStageWork::fail_lifecycle_work(const MessageId& event_id, std::string_view error,
                                                  bool dead_letter,
                                                  const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    auto it = core_.state.lifecycle.find(event_id);
    if (it == core_.state.lifecycle.end() || !core_.owned(it->second.instance_id)) {
      return absl::OkStatus();
    }
    memory_store::LifecycleRow& row = it->second;
    core_.fail({row.attempts, row.error, row.failure_reason, row.instance_id, row.lease_expiry,
                row.scheduled_for, row.dead_lettered_at},
               "wh_lifecycle_completions", event_id, "PostLifecycle", row.stream_id, error,
               FailureReason::Unknown, dead_letter, retry);
    return absl::OkStatus();
  });
}

}  // namespace whizbang
