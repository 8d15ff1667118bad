// SqliteStageWork: the stage-work role (lifecycle completions, detached work) on SQLite.
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/stage_work_store.hpp"

namespace whizbang {

class SqliteStageWork final : public StageWorkStore {
 public:
  explicit SqliteStageWork(SqliteCore& core) : core_(core) {}

  absl::StatusOr<std::vector<LifecycleWork>> claim_lifecycle_work(std::size_t max_items) override;
  absl::StatusOr<bool> renew_lifecycle_work(const MessageId& event_id) override;
  absl::Status complete_lifecycle_work(const MessageId& event_id) override;
  absl::Status fail_lifecycle_work(
      const MessageId& event_id, std::string_view error, bool dead_letter,
      const std::optional<RetryDecision>& retry = std::nullopt) override;
  absl::Status store_detached_work(const DetachedWork& work) override;
  absl::StatusOr<std::vector<DetachedWork>> claim_detached_work(std::size_t max_items) override;
  absl::StatusOr<bool> complete_detached_work(const MessageId& work_id) override;
  absl::Status fail_detached_work(
      const MessageId& work_id, std::string_view error, bool dead_letter,
      const std::optional<RetryDecision>& retry = std::nullopt) override;

 private:
  SqliteCore& core_;
};

}  // namespace whizbang
