// SqliteCoordination: the coordination role (work cycles, completions, leases, receptor
// invocations) on SQLite.
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/work_coordination.hpp"

namespace whizbang {

class SqliteCoordination final : public WorkCoordination {
 public:
  explicit SqliteCoordination(SqliteCore& core) : core_(core) {}

  absl::StatusOr<std::vector<WorkItem>> process_work_batch(
      const WorkBatchRequest& request) override;
  absl::Status complete_work(std::span<const WorkCompletion> completions,
                             std::span<const WorkFailure> failures) override;
  absl::Status defer_work(std::span<const WorkDeferral> deferrals) override;
  absl::StatusOr<std::vector<MessageId>> renew_leases(std::span<const WorkLease> leases) override;
  absl::Status record_receptor_invocations(
      const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) override;
  absl::StatusOr<std::vector<ReceptorInvocationRecord>> find_receptor_invocations(
      const MessageId& message_id, std::string_view receptor_id) override;

 private:
  SqliteCore& core_;
};

}  // namespace whizbang
