// HookedStore: a WorkStore that forwards every call to another and runs a test's hook before
// some of them: where a fault is injected (a failed completion) or another instance is made to
// act at an exact point (between a claim and a handling).
#pragma once

#include <functional>
#include <memory>

#include <whizbang/store/store_reader.hpp>
#include <whizbang/store/work_store.hpp>

namespace faults {

class HookedStore final : public whizbang::WorkStore, public whizbang::StoreReader {
 public:
  explicit HookedStore(std::unique_ptr<whizbang::WorkStore> inner) : inner_(std::move(inner)) {}

  whizbang::WorkStore& inner() { return *inner_; }

  // Hooks; a non-OK status from one is returned instead of calling the store.
  std::function<void()> before_begin;
  std::function<absl::Status(std::span<const whizbang::WorkLease>)> before_renew_leases;
  std::function<absl::Status()> before_complete_work;
  // Before delivered messages are stored (store_inbox_messages, accept_deliveries).
  std::function<absl::Status(std::span<const whizbang::InboxMessage>)> before_store_inbox;
  // Before the records of a receptor's firing are written (the receptor has fired).
  std::function<void(std::span<const whizbang::ReceptorInvocationRecord>)>
      before_record_receptor_invocations;
  // After the outermost explicit transaction committed (its writes are visible to others).
  std::function<void()> after_commit;

  absl::Status begin() override {
    if (before_begin) before_begin();
    return inner_->begin();
  }
  absl::Status commit() override {
    absl::Status status = inner_->commit();
    if (status.ok() && !inner_->in_transaction() && after_commit) after_commit();
    return status;
  }
  absl::Status rollback() override { return inner_->rollback(); }
  bool in_transaction() const override { return inner_->in_transaction(); }
  bool writers_take_turns() const override { return inner_->writers_take_turns(); }
  absl::Status savepoint() override { return inner_->savepoint(); }
  absl::Status release_savepoint() override { return inner_->release_savepoint(); }
  absl::Status rollback_to_savepoint() override { return inner_->rollback_to_savepoint(); }

  absl::StatusOr<std::vector<whizbang::StoredOutboxRow>> store_outbox_messages(
      std::span<const whizbang::OutboxMessage> messages) override {
    return inner_->store_outbox_messages(messages);
  }
  absl::StatusOr<bool> remember_dispatch(const whizbang::MessageId& id) override {
    return inner_->remember_dispatch(id);
  }
  absl::StatusOr<std::vector<whizbang::MessageId>> store_inbox_messages(
      std::span<const whizbang::InboxMessage> messages,
      const whizbang::Uuid& receiving_service_id) override {
    if (before_store_inbox) {
      if (absl::Status status = before_store_inbox(messages); !status.ok()) return status;
    }
    return inner_->store_inbox_messages(messages, receiving_service_id);
  }
  bool accepts_deliveries() const override { return inner_->accepts_deliveries(); }
  absl::StatusOr<whizbang::AcceptedDeliveries> accept_deliveries(
      std::span<const whizbang::InboxMessage> messages,
      const whizbang::Uuid& receiving_service_id) override {
    if (before_store_inbox) {
      if (absl::Status status = before_store_inbox(messages); !status.ok()) return status;
    }
    return inner_->accept_deliveries(messages, receiving_service_id);
  }
  absl::Status keep_accepted(std::span<const whizbang::InboxMessage> messages,
                             const whizbang::Uuid& receiving_service_id) override {
    return inner_->keep_accepted(messages, receiving_service_id);
  }
  absl::StatusOr<std::vector<whizbang::WorkItem>> process_work_batch(
      const whizbang::WorkBatchRequest& request) override {
    return inner_->process_work_batch(request);
  }
  absl::Status complete_work(std::span<const whizbang::WorkCompletion> completions,
                             std::span<const whizbang::WorkFailure> failures) override {
    if (before_complete_work) {
      if (absl::Status status = before_complete_work(); !status.ok()) return status;
    }
    return inner_->complete_work(completions, failures);
  }
  absl::Status defer_work(std::span<const whizbang::WorkDeferral> deferrals) override {
    return inner_->defer_work(deferrals);
  }
  absl::StatusOr<std::vector<whizbang::MessageId>> renew_leases(
      std::span<const whizbang::WorkLease> leases) override {
    if (before_renew_leases) {
      if (absl::Status status = before_renew_leases(leases); !status.ok()) return status;
    }
    return inner_->renew_leases(leases);
  }
  absl::Status record_receptor_invocations(
      const whizbang::MessageId& message_id,
      std::span<const whizbang::ReceptorInvocationRecord> records) override {
    if (before_record_receptor_invocations) before_record_receptor_invocations(records);
    return inner_->record_receptor_invocations(message_id, records);
  }
  absl::StatusOr<std::vector<whizbang::ReceptorInvocationRecord>> find_receptor_invocations(
      const whizbang::MessageId& message_id, std::string_view receptor_id) override {
    return inner_->find_receptor_invocations(message_id, receptor_id);
  }
  absl::Status add_perspective_association(std::string_view message_type,
                                           std::string_view perspective) override {
    return inner_->add_perspective_association(message_type, perspective);
  }
  absl::StatusOr<std::vector<whizbang::PerspectiveWork>> claim_perspective_work(
      std::size_t max_items) override {
    return inner_->claim_perspective_work(max_items);
  }
  absl::StatusOr<whizbang::PerspectiveCompletion> complete_perspective_work(
      std::span<const whizbang::MessageId> event_work_ids) override {
    return inner_->complete_perspective_work(event_work_ids);
  }
  absl::Status fail_perspective_work(
      const whizbang::MessageId& event_work_id, std::string_view error, bool dead_letter,
      const std::optional<whizbang::RetryDecision>& retry = std::nullopt) override {
    return inner_->fail_perspective_work(event_work_id, error, dead_letter, retry);
  }
  absl::StatusOr<std::vector<whizbang::LifecycleWork>> claim_lifecycle_work(
      std::size_t max_items) override {
    return inner_->claim_lifecycle_work(max_items);
  }
  absl::StatusOr<bool> renew_lifecycle_work(const whizbang::MessageId& event_id) override {
    return inner_->renew_lifecycle_work(event_id);
  }
  absl::Status complete_lifecycle_work(const whizbang::MessageId& event_id) override {
    return inner_->complete_lifecycle_work(event_id);
  }
  absl::Status fail_lifecycle_work(
      const whizbang::MessageId& event_id, std::string_view error, bool dead_letter,
      const std::optional<whizbang::RetryDecision>& retry = std::nullopt) override {
    return inner_->fail_lifecycle_work(event_id, error, dead_letter, retry);
  }
  absl::StatusOr<std::optional<whizbang::PerspectiveModelRow>> load_perspective_model(
      std::string_view perspective, const whizbang::Uuid& stream_id) override {
    return inner_->load_perspective_model(perspective, stream_id);
  }
  absl::StatusOr<std::vector<whizbang::PerspectiveModelEntry>> list_perspective_models(
      std::string_view perspective, const std::optional<whizbang::Uuid>& after_stream,
      std::size_t limit) override {
    return inner_->list_perspective_models(perspective, after_stream, limit);
  }
  absl::Status save_perspective_model(std::string_view perspective, const whizbang::Uuid& stream_id,
                                      std::string_view model_json,
                                      const whizbang::MessageId& last_event_id) override {
    return inner_->save_perspective_model(perspective, stream_id, model_json, last_event_id);
  }
  absl::StatusOr<std::optional<whizbang::PerspectiveCursor>> load_perspective_cursor(
      std::string_view perspective, const whizbang::Uuid& stream_id) override {
    return inner_->load_perspective_cursor(perspective, stream_id);
  }
  absl::Status save_perspective_cursor(const whizbang::PerspectiveCursor& cursor) override {
    return inner_->save_perspective_cursor(cursor);
  }
  absl::StatusOr<std::vector<whizbang::EventSyncState>> event_sync_states(
      std::span<const whizbang::MessageId> event_ids) override {
    return inner_->event_sync_states(event_ids);
  }
  absl::Status store_detached_work(const whizbang::DetachedWork& work) override {
    return inner_->store_detached_work(work);
  }
  absl::StatusOr<std::vector<whizbang::DetachedWork>> claim_detached_work(
      std::size_t max_items) override {
    return inner_->claim_detached_work(max_items);
  }
  absl::StatusOr<bool> complete_detached_work(const whizbang::MessageId& work_id) override {
    return inner_->complete_detached_work(work_id);
  }
  absl::Status fail_detached_work(
      const whizbang::MessageId& work_id, std::string_view error, bool dead_letter,
      const std::optional<whizbang::RetryDecision>& retry = std::nullopt) override {
    return inner_->fail_detached_work(work_id, error, dead_letter, retry);
  }
  absl::StatusOr<std::vector<whizbang::DeadLetter>> dead_letters(std::size_t limit) override {
    return inner_->dead_letters(limit);
  }
  absl::StatusOr<std::size_t> requeue_dead_letters(
      std::span<const whizbang::MessageId> ids) override {
    return inner_->requeue_dead_letters(ids);
  }
  absl::StatusOr<whizbang::PurgeCounts> purge(
      const whizbang::RetentionOptions& retention) override {
    return inner_->purge(retention);
  }
  // DeadLetterOperations: forwarded.
  absl::StatusOr<whizbang::DeadLetterPage> list_dead_letters(
      const whizbang::DeadLetterFilter& filter, std::size_t limit,
      const std::optional<whizbang::DeadLetterCursor>& after) override {
    return inner_->list_dead_letters(filter, limit, after);
  }
  absl::StatusOr<std::vector<whizbang::DeadLetterGroup>> dead_letter_groups(
      const whizbang::DeadLetterFilter& filter) override {
    return inner_->dead_letter_groups(filter);
  }
  absl::StatusOr<std::optional<whizbang::DeadLetterDetail>> find_dead_letter(
      const whizbang::DeadLetterKey& key) override {
    return inner_->find_dead_letter(key);
  }
  absl::StatusOr<std::size_t> requeue_dead_letter_keys(
      std::span<const whizbang::DeadLetterKey> keys) override {
    return inner_->requeue_dead_letter_keys(keys);
  }
  absl::StatusOr<std::size_t> discard_dead_letters(std::span<const whizbang::DeadLetterKey> keys,
                                                   std::string_view reason) override {
    return inner_->discard_dead_letters(keys, reason);
  }
  absl::StatusOr<std::vector<whizbang::DiscardedDeadLetter>> discarded_dead_letters(
      std::size_t limit) override {
    return inner_->discarded_dead_letters(limit);
  }
  absl::StatusOr<whizbang::WorkBacklog> work_backlog() override { return inner_->work_backlog(); }
  absl::StatusOr<std::optional<whizbang::OutboxRow>> find_outbox_row(
      const whizbang::MessageId& id) override {
    return whizbang::reader_of(*inner_)->find_outbox_row(id);
  }
  absl::StatusOr<std::optional<whizbang::InboxRow>> find_inbox_row(
      const whizbang::MessageId& id) override {
    return whizbang::reader_of(*inner_)->find_inbox_row(id);
  }
  absl::StatusOr<std::vector<whizbang::StoredEvent>> read_stream(
      const whizbang::Uuid& stream_id) override {
    return inner_->read_stream(stream_id);
  }
  absl::StatusOr<std::vector<whizbang::PerspectiveEventRow>> perspective_events(
      const whizbang::Uuid& stream_id) override {
    return whizbang::reader_of(*inner_)->perspective_events(stream_id);
  }
  int add_commit_listener(CommitListener listener) override {
    return inner_->add_commit_listener(std::move(listener));
  }
  void remove_commit_listener(int id) override { inner_->remove_commit_listener(id); }

  // PerspectiveRebuildStore
  absl::StatusOr<std::vector<whizbang::Uuid>> perspective_streams(
      std::span<const std::string> types, const std::optional<whizbang::Uuid>& after,
      std::size_t limit) override {
    return inner_->perspective_streams(types, after, limit);
  }
  absl::StatusOr<std::int64_t> count_perspective_events(
      std::span<const std::string> types, std::span<const whizbang::Uuid> streams) override {
    return inner_->count_perspective_events(types, streams);
  }
  absl::StatusOr<std::vector<whizbang::StoredEvent>> read_perspective_events(
      std::span<const whizbang::Uuid> streams, std::span<const std::string> types) override {
    return inner_->read_perspective_events(streams, types);
  }
  absl::Status complete_replayed_events(std::string_view perspective, const whizbang::Uuid& stream,
                                        std::int64_t version) override {
    return inner_->complete_replayed_events(perspective, stream, version);
  }
  absl::Status record_shadow_stream(std::string_view shadow, const whizbang::Uuid& stream,
                                    std::int64_t version) override {
    return inner_->record_shadow_stream(shadow, stream, version);
  }
  absl::StatusOr<std::vector<whizbang::Uuid>> shadow_streams_behind(
      std::string_view shadow, std::span<const std::string> types,
      std::span<const whizbang::Uuid> streams) override {
    return inner_->shadow_streams_behind(shadow, types, streams);
  }
  absl::Status lock_perspective_models(std::string_view perspective) override {
    return inner_->lock_perspective_models(perspective);
  }
  absl::Status swap_shadow_models(std::string_view perspective, std::string_view shadow,
                                  std::span<const whizbang::Uuid> streams) override {
    return inner_->swap_shadow_models(perspective, shadow, streams);
  }
  absl::Status drop_perspective_models(std::string_view perspective) override {
    return inner_->drop_perspective_models(perspective);
  }
  absl::StatusOr<bool> has_perspective_models(std::string_view perspective) override {
    return inner_->has_perspective_models(perspective);
  }
  absl::StatusOr<bool> request_perspective_rebuild(
      const whizbang::PerspectiveRebuildRow& row) override {
    return inner_->request_perspective_rebuild(row);
  }
  absl::StatusOr<std::optional<whizbang::PerspectiveRebuildRow>> claim_perspective_rebuild(
      std::span<const std::string> perspectives, std::chrono::milliseconds lease) override {
    return inner_->claim_perspective_rebuild(perspectives, lease);
  }
  absl::StatusOr<bool> save_perspective_rebuild(const whizbang::PerspectiveRebuildRow& row,
                                                std::chrono::milliseconds lease) override {
    return inner_->save_perspective_rebuild(row, lease);
  }
  absl::StatusOr<std::vector<whizbang::PerspectiveRebuildRow>> perspective_rebuilds() override {
    return inner_->perspective_rebuilds();
  }
  absl::StatusOr<std::vector<whizbang::PerspectiveVersionRow>> perspective_versions() override {
    return inner_->perspective_versions();
  }
  absl::Status set_perspective_version(std::string_view perspective,
                                       std::uint32_t version) override {
    return inner_->set_perspective_version(perspective, version);
  }
  absl::StatusOr<std::vector<whizbang::PerspectiveLag>> perspective_lag() override {
    return inner_->perspective_lag();
  }

 private:
  std::unique_ptr<whizbang::WorkStore> inner_;
};

}  // namespace faults
