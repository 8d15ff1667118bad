// MemoryCoordination: the coordination role (work cycles, completions, leases, receptor
// invocations) on memory.
#include "memory/memory_coordination.hpp"

#include <algorithm>
#include <cctype>

#include "memory/memory_core.hpp"

namespace whizbang {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

absl::StatusOr<std::vector<WorkItem>> MemoryCoordination::process_work_batch(
    const WorkBatchRequest& request) {
  return core_.gate.run(
      [&]() -> absl::StatusOr<std::vector<WorkItem>> { return core_.process(request); });
}

absl::Status MemoryCoordination::complete_work(std::span<const WorkCompletion> completions,
                                               std::span<const WorkFailure> failures) {
  return core_.gate.run([&]() -> absl::Status {
    core_.complete(completions, failures, /*debug_mode=*/false);
    return absl::OkStatus();
  });
}

absl::Status MemoryCoordination::defer_work(std::span<const WorkDeferral> deferrals) {
  return core_.gate.run([&]() -> absl::Status {
    const TimePoint at = core_.now();
    for (const WorkDeferral& deferral : deferrals) {
      RowState* row = core_.find_state(deferral.source, deferral.message_id);
      if (row == nullptr || !core_.owned(row->instance_id)) continue;
      if (row->processed_at || row->dead_lettered_at) continue;
      row->scheduled_for = at + std::chrono::duration_cast<TimePoint::duration>(
                                    std::max(deferral.wait, std::chrono::microseconds::zero()));
      row->instance_id.reset();
      row->lease_expiry.reset();
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<MessageId>> MemoryCoordination::renew_leases(
    std::span<const WorkLease> leases) {
  return core_.gate.run(
      [&]() -> absl::StatusOr<std::vector<MessageId>> { return core_.renew(leases); });
}

absl::Status MemoryCoordination::record_receptor_invocations(
    const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) {
  return core_.gate.run([&]() -> absl::Status {
    for (const ReceptorInvocationRecord& record : records) {
      core_.state.invocations.try_emplace(
          {message_id, record.receptor_id.str(), lower(record.service_name), record.perspective},
          core_.state.invocation_sequence++, record);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<ReceptorInvocationRecord>> MemoryCoordination::find_receptor_invocations(
    const MessageId& message_id, std::string_view receptor_id) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<ReceptorInvocationRecord>> {
    std::vector<std::pair<std::int64_t, ReceptorInvocationRecord>> found;
    for (const auto& [key, value] : core_.state.invocations) {
      if (std::get<0>(key) == message_id && std::get<1>(key) == receptor_id) found.push_back(value);
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<ReceptorInvocationRecord> records;
    for (auto& [sequence, record] : found) records.push_back(std::move(record));
    return records;
  });
}

}  // namespace whizbang
