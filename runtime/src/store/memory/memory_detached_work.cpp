// MemoryWorkStore: detached work — Detached stages scheduled on an executor, kept until they ran.
#include "memory/memory_store_impl.hpp"

namespace whizbang {

absl::Status MemoryWorkStore::store_detached_work(const DetachedWork& work) {
  return impl_->gate.run([&]() -> absl::Status {
    memory_store::DetachedRow row;
    row.work = work;
    row.work.attempts = 0;
    row.instance_id = impl_->self();
    row.lease_expiry = impl_->now() + impl_->options.lease_duration;
    if (!impl_->state.detached.emplace(work.work_id, std::move(row)).second) {
      return absl::AlreadyExistsError("detached work " + work.work_id.to_string() + " exists");
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<DetachedWork>> MemoryWorkStore::claim_detached_work(
    std::size_t max_items) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<DetachedWork>> {
    const TimePoint at = impl_->now();
    std::vector<DetachedWork> work;
    for (auto& [id, row] : impl_->state.detached) {
      if (work.size() == max_items) break;
      // Not work leased to this instance: that is on its way through this process's executor.
      const bool lapsed = row.instance_id && row.lease_expiry && *row.lease_expiry < at;
      if (row.dead_lettered_at || (row.scheduled_for && *row.scheduled_for > at) ||
          (row.instance_id && !lapsed)) {
        continue;
      }
      row.instance_id = impl_->self();
      row.lease_expiry = at + impl_->options.lease_duration;
      work.push_back(row.work);
    }
    return work;
  });
}

absl::StatusOr<bool> MemoryWorkStore::complete_detached_work(const MessageId& work_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<bool> {
    auto it = impl_->state.detached.find(work_id);
    // Only under this instance's own lease (see sql::kDeleteDetachedWork).
    if (it == impl_->state.detached.end() || it->second.dead_lettered_at ||
        it->second.instance_id != impl_->self()) {
      return false;
    }
    impl_->state.detached.erase(it);
    return true;
  });
}

absl::Status MemoryWorkStore::fail_detached_work(const MessageId& work_id, std::string_view error,
                                                 bool dead_letter) {
  return impl_->gate.run([&]() -> absl::Status {
    auto it = impl_->state.detached.find(work_id);
    if (it == impl_->state.detached.end() || !impl_->owned(it->second.instance_id)) {
      return absl::OkStatus();
    }
    memory_store::DetachedRow& row = it->second;
    impl_->fail({row.work.attempts, row.error, row.failure_reason, row.instance_id,
                 row.lease_expiry, row.scheduled_for, row.dead_lettered_at},
                "wh_detached_work", work_id, row.work.message_type, std::nullopt, error,
                FailureReason::Unknown, dead_letter);
    return absl::OkStatus();
  });
}

}  // namespace whizbang
