// PostgresCoordination: the coordination role (work cycles, completions, leases, receptor
// invocations) on PostgreSQL.
#pragma once

#include "postgres/postgres_core.hpp"
#include "whizbang/store/work_coordination.hpp"

namespace whizbang {

class PostgresCoordination final : public WorkCoordination {
 public:
  explicit PostgresCoordination(PostgresCore& core) : core_(core) {}

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
  PostgresCore& core_;
};

}  // namespace whizbang
