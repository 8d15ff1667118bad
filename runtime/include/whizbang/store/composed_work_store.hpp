// ComposedWorkStore: a WorkStore made of one object per role, forwarding each call to its role.
//
// The forwarding is written here once for every backend: a backend implements each role in its
// own class (store/<backend>/<backend>_<role>.{hpp,cpp}, over a shared per-backend core) and
// hands them to compose(). Adding a method to a role touches the role's header, its forwarding
// here, and each backend's role class, not one override list per backend.
//
//   class MyStore final : public whizbang::ComposedWorkStore {
//    public:
//     MyStore() { compose(roles_.roles()); }   // every role object outlives the store's calls
//   };
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "whizbang/store/work_store.hpp"

namespace whizbang {

// The role objects a backend composes its WorkStore of; none may be null.
struct WorkStoreRoles {
  StoreTransactions* transactions = nullptr;
  OutboxStore* outbox = nullptr;
  InboxStore* inbox = nullptr;
  EventStore* events = nullptr;
  PerspectiveStore* perspectives = nullptr;
  PerspectiveSyncStore* perspective_sync = nullptr;
  StageWorkStore* stage_work = nullptr;
  WorkCoordination* coordination = nullptr;
  StoreOperations* operations = nullptr;
  PerspectiveRebuildStore* rebuilds = nullptr;
  DeadLetterOperations* dead_letters = nullptr;
};

class ComposedWorkStore : public WorkStore {
 public:
  // StoreTransactions
  absl::Status begin() final;
  absl::Status begin_snapshot() final;
  absl::Status commit() final;
  absl::Status rollback() final;
  bool in_transaction() const final;
  bool writers_take_turns() const final;
  absl::Status savepoint() final;
  absl::Status release_savepoint() final;
  absl::Status rollback_to_savepoint() final;
  absl::StatusOr<SqlSession*> sql() final;
  int add_commit_listener(CommitListener listener) final;
  void remove_commit_listener(int id) final;

  // OutboxStore
  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) final;
  absl::StatusOr<bool> remember_dispatch(const MessageId& id) final;

  // InboxStore
  absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) final;
  bool accepts_deliveries() const final;
  absl::StatusOr<AcceptedDeliveries> accept_deliveries(std::span<const InboxMessage> messages,
                                                       const Uuid& receiving_service_id) final;
  absl::Status keep_accepted(std::span<const InboxMessage> messages,
                             const Uuid& receiving_service_id) final;

  // EventStore
  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) final;

  // PerspectiveStore
  absl::Status add_perspective_association(std::string_view message_type,
                                           std::string_view perspective) final;
  absl::StatusOr<std::vector<PerspectiveWork>> claim_perspective_work(std::size_t max_items) final;
  absl::StatusOr<PerspectiveCompletion> complete_perspective_work(
      std::span<const MessageId> event_work_ids) final;
  absl::Status fail_perspective_work(
      const MessageId& event_work_id, std::string_view error, bool dead_letter,
      const std::optional<RetryDecision>& retry = std::nullopt) final;
  absl::StatusOr<std::optional<PerspectiveModelRow>> load_perspective_model(
      std::string_view perspective, const Uuid& stream_id) final;
  absl::StatusOr<std::vector<PerspectiveModelEntry>> list_perspective_models(
      std::string_view perspective, const std::optional<Uuid>& after_stream,
      std::size_t limit) final;
  absl::Status save_perspective_model(std::string_view perspective, const Uuid& stream_id,
                                      std::string_view model_json,
                                      const MessageId& last_event_id) final;

  // PerspectiveSyncStore
  absl::StatusOr<std::optional<PerspectiveCursor>> load_perspective_cursor(
      std::string_view perspective, const Uuid& stream_id) final;
  absl::Status save_perspective_cursor(const PerspectiveCursor& cursor) final;
  absl::StatusOr<std::vector<EventSyncState>> event_sync_states(
      std::span<const MessageId> event_ids) final;
  // PerspectiveRebuildStore
  absl::StatusOr<std::vector<Uuid>> perspective_streams(std::span<const std::string> event_types,
                                                        const std::optional<Uuid>& after,
                                                        std::size_t limit) final;
  absl::StatusOr<std::int64_t> count_perspective_events(std::span<const std::string> event_types,
                                                        std::span<const Uuid> streams) final;
  absl::StatusOr<std::vector<StoredEvent>> read_perspective_events(
      std::span<const Uuid> streams, std::span<const std::string> event_types) final;
  absl::Status complete_replayed_events(std::string_view perspective, const Uuid& stream,
                                        std::int64_t version) final;
  absl::Status record_shadow_stream(std::string_view shadow, const Uuid& stream,
                                    std::int64_t version) final;
  absl::StatusOr<std::vector<Uuid>> shadow_streams_behind(std::string_view shadow,
                                                          std::span<const std::string> event_types,
                                                          std::span<const Uuid> streams) final;
  absl::Status lock_perspective_models(std::string_view perspective) final;
  absl::Status swap_shadow_models(std::string_view perspective, std::string_view shadow,
                                  std::span<const Uuid> streams) final;
  absl::Status drop_perspective_models(std::string_view perspective) final;
  absl::StatusOr<bool> has_perspective_models(std::string_view perspective) final;
  absl::StatusOr<bool> request_perspective_rebuild(const PerspectiveRebuildRow& row) final;
  absl::StatusOr<std::optional<PerspectiveRebuildRow>> claim_perspective_rebuild(
      std::span<const std::string> perspectives, std::chrono::milliseconds lease) final;
  absl::StatusOr<bool> save_perspective_rebuild(const PerspectiveRebuildRow& row,
                                                std::chrono::milliseconds lease) final;
  absl::StatusOr<std::vector<PerspectiveRebuildRow>> perspective_rebuilds() final;
  absl::StatusOr<std::vector<PerspectiveVersionRow>> perspective_versions() final;
  absl::Status set_perspective_version(std::string_view perspective, std::uint32_t version) final;
  absl::StatusOr<std::vector<PerspectiveLag>> perspective_lag() final;

  // StageWorkStore
  absl::StatusOr<std::vector<LifecycleWork>> claim_lifecycle_work(std::size_t max_items) final;
  absl::StatusOr<bool> renew_lifecycle_work(const MessageId& event_id) final;
  absl::Status complete_lifecycle_work(const MessageId& event_id) final;
  absl::Status fail_lifecycle_work(const MessageId& event_id, std::string_view error,
                                   bool dead_letter,
                                   const std::optional<RetryDecision>& retry = std::nullopt) final;
  absl::Status store_detached_work(const DetachedWork& work) final;
  absl::StatusOr<std::vector<DetachedWork>> claim_detached_work(std::size_t max_items) final;
  absl::StatusOr<bool> complete_detached_work(const MessageId& work_id) final;
  absl::Status fail_detached_work(const MessageId& work_id, std::string_view error,
                                  bool dead_letter,
                                  const std::optional<RetryDecision>& retry = std::nullopt) final;

  // WorkCoordination
  absl::StatusOr<std::vector<WorkItem>> process_work_batch(const WorkBatchRequest& request) final;
  absl::Status complete_work(std::span<const WorkCompletion> completions,
                             std::span<const WorkFailure> failures) final;
  absl::Status defer_work(std::span<const WorkDeferral> deferrals) final;
  absl::StatusOr<std::vector<MessageId>> renew_leases(std::span<const WorkLease> leases) final;
  absl::Status record_receptor_invocations(const MessageId& message_id,
                                           std::span<const ReceptorInvocationRecord> records) final;
  absl::StatusOr<std::vector<ReceptorInvocationRecord>> find_receptor_invocations(
      const MessageId& message_id, std::string_view receptor_id) final;

  // StoreOperations
  absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) final;
  absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) final;
  absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) final;

  // DeadLetterOperations (composed_dead_letters.cpp)
  absl::StatusOr<DeadLetterPage> list_dead_letters(
      const DeadLetterFilter& filter, std::size_t limit,
      const std::optional<DeadLetterCursor>& after) final;
  absl::StatusOr<std::vector<DeadLetterGroup>> dead_letter_groups(
      const DeadLetterFilter& filter) final;
  absl::StatusOr<std::optional<DeadLetterDetail>> find_dead_letter(const DeadLetterKey& key) final;
  absl::StatusOr<std::size_t> requeue_dead_letter_keys(std::span<const DeadLetterKey> keys) final;
  absl::StatusOr<std::size_t> discard_dead_letters(std::span<const DeadLetterKey> keys,
                                                   std::string_view reason) final;
  absl::StatusOr<std::vector<DiscardedDeadLetter>> discarded_dead_letters(std::size_t limit) final;
  absl::StatusOr<WorkBacklog> work_backlog() final;

 protected:
  ComposedWorkStore() = default;
  // Called once, from the backend's constructor, before the store is used.
  void compose(const WorkStoreRoles& roles) { roles_ = roles; }

 private:
  WorkStoreRoles roles_;
};

}  // namespace whizbang
