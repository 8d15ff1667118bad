// PostgresPerspectives: the perspective role (perspective events, models, associations) on
// PostgreSQL.
#pragma once

#include "postgres/postgres_core.hpp"
#include "whizbang/store/perspective_store.hpp"

namespace whizbang {

class PostgresPerspectives final : public PerspectiveStore {
 public:
  explicit PostgresPerspectives(PostgresCore& core) : core_(core) {}

  absl::Status add_perspective_association(std::string_view message_type,
                                           std::string_view perspective) override;
  absl::StatusOr<std::vector<PerspectiveWork>> claim_perspective_work(
      std::size_t max_items) override;
  absl::StatusOr<PerspectiveCompletion> complete_perspective_work(
      std::span<const MessageId> event_work_ids) override;
  absl::Status fail_perspective_work(
      const MessageId& event_work_id, std::string_view error, bool dead_letter,
      const std::optional<RetryDecision>& retry = std::nullopt) override;
  absl::StatusOr<std::optional<PerspectiveModelRow>> load_perspective_model(
      std::string_view perspective, const Uuid& stream_id) override;
  absl::StatusOr<std::vector<PerspectiveModelEntry>> list_perspective_models(
      std::string_view perspective, const std::optional<Uuid>& after_stream,
      std::size_t limit) override;
  absl::Status save_perspective_model(std::string_view perspective, const Uuid& stream_id,
                                      std::string_view model_json,
                                      const MessageId& last_event_id) override;

 private:
  PostgresCore& core_;
};

}  // namespace whizbang
