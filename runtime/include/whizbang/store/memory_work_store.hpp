// MemoryWorkStore: the WorkStore contract held in process memory.
//
// For tests and for hosts that need no durability: it passes the same contract tests as the
// SQLite store (dedup, leases, orphan re-offer, backoff, event-store versions, transactions with
// rollback). A transaction snapshots the state at begin() and restores it on rollback.
//
//   whizbang::MemoryWorkStore store({.instance = self, .metrics = metrics});
//   auto rows = store.store_outbox_messages(messages);
//   auto row = store.find_outbox_row(rows->front().message_id);   // inspect
#pragma once

#include <memory>

#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class MemoryWorkStore final : public WorkStore, public StoreReader {
 public:
  explicit MemoryWorkStore(StoreOptions options = {});
  ~MemoryWorkStore() override;
  MemoryWorkStore(const MemoryWorkStore&) = delete;
  MemoryWorkStore& operator=(const MemoryWorkStore&) = delete;

  absl::Status begin() override;
  absl::Status commit() override;
  absl::Status rollback() override;
  bool in_transaction() const override;
  bool writers_take_turns() const override { return true; }
  absl::Status savepoint() override;
  absl::Status release_savepoint() override;
  absl::Status rollback_to_savepoint() override;

  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override;
  absl::StatusOr<bool> remember_dispatch(const MessageId& id) override;
  absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) override;
  absl::StatusOr<std::vector<WorkItem>> process_work_batch(
      const WorkBatchRequest& request) override;
  absl::Status complete_work(std::span<const WorkCompletion> completions,
                             std::span<const WorkFailure> failures) override;
  absl::StatusOr<std::vector<MessageId>> renew_leases(std::span<const WorkLease> leases) override;
  absl::Status record_receptor_invocations(
      const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) override;
  absl::StatusOr<std::vector<ReceptorInvocationRecord>> find_receptor_invocations(
      const MessageId& message_id, std::string_view receptor_id) override;
  absl::Status add_perspective_association(std::string_view message_type,
                                           std::string_view perspective) override;

  absl::StatusOr<std::vector<PerspectiveWork>> claim_perspective_work(
      std::size_t max_items) override;
  absl::StatusOr<PerspectiveCompletion> complete_perspective_work(
      std::span<const MessageId> event_work_ids) override;
  absl::Status fail_perspective_work(const MessageId& event_work_id, std::string_view error,
                                     bool dead_letter) override;
  absl::StatusOr<std::vector<LifecycleWork>> claim_lifecycle_work(std::size_t max_items) override;
  absl::StatusOr<bool> renew_lifecycle_work(const MessageId& event_id) override;
  absl::Status complete_lifecycle_work(const MessageId& event_id) override;
  absl::Status fail_lifecycle_work(const MessageId& event_id, std::string_view error,
                                   bool dead_letter) override;
  absl::StatusOr<std::optional<PerspectiveModelRow>> load_perspective_model(
      std::string_view perspective, const Uuid& stream_id) override;
  absl::Status save_perspective_model(std::string_view perspective, const Uuid& stream_id,
                                      std::string_view model_json,
                                      const MessageId& last_event_id) override;

  absl::Status store_detached_work(const DetachedWork& work) override;
  absl::StatusOr<std::vector<DetachedWork>> claim_detached_work(std::size_t max_items) override;
  absl::StatusOr<bool> complete_detached_work(const MessageId& work_id) override;
  absl::Status fail_detached_work(const MessageId& work_id, std::string_view error,
                                  bool dead_letter) override;

  absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) override;
  absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) override;
  absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) override;

  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) override;

  // StoreReader
  absl::StatusOr<std::optional<OutboxRow>> find_outbox_row(const MessageId& id) override;
  absl::StatusOr<std::optional<InboxRow>> find_inbox_row(const MessageId& id) override;
  absl::StatusOr<std::vector<PerspectiveEventRow>> perspective_events(
      const Uuid& stream_id) override;

  int add_commit_listener(CommitListener listener) override;
  void remove_commit_listener(int id) override;

  const StoreOptions& options() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
