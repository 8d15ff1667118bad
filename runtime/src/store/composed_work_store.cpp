// ComposedWorkStore: each WorkStore call forwarded to the role object that implements it.
#include "whizbang/store/composed_work_store.hpp"

#include <utility>

namespace whizbang {

// StoreTransactions
absl::Status ComposedWorkStore::begin() { return roles_.transactions->begin(); }
absl::Status ComposedWorkStore::begin_snapshot() { return roles_.transactions->begin_snapshot(); }
absl::Status ComposedWorkStore::commit() { return roles_.transactions->commit(); }
absl::Status ComposedWorkStore::rollback() { return roles_.transactions->rollback(); }
bool ComposedWorkStore::in_transaction() const { return roles_.transactions->in_transaction(); }
bool ComposedWorkStore::writers_take_turns() const {
  return roles_.transactions->writers_take_turns();
}
absl::Status ComposedWorkStore::savepoint() { return roles_.transactions->savepoint(); }
absl::Status ComposedWorkStore::release_savepoint() {
  return roles_.transactions->release_savepoint();
}
absl::Status ComposedWorkStore::rollback_to_savepoint() {
  return roles_.transactions->rollback_to_savepoint();
}
absl::StatusOr<SqlSession*> ComposedWorkStore::sql() { return roles_.transactions->sql(); }
int ComposedWorkStore::add_commit_listener(CommitListener listener) {
  return roles_.transactions->add_commit_listener(std::move(listener));
}
void ComposedWorkStore::remove_commit_listener(int id) {
  roles_.transactions->remove_commit_listener(id);
}

// OutboxStore
absl::StatusOr<std::vector<StoredOutboxRow>> ComposedWorkStore::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  return roles_.outbox->store_outbox_messages(messages);
}
absl::StatusOr<bool> ComposedWorkStore::remember_dispatch(const MessageId& id) {
  return roles_.outbox->remember_dispatch(id);
}

// InboxStore
absl::StatusOr<std::vector<MessageId>> ComposedWorkStore::store_inbox_messages(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  return roles_.inbox->store_inbox_messages(messages, receiving_service_id);
}
bool ComposedWorkStore::accepts_deliveries() const { return roles_.inbox->accepts_deliveries(); }
absl::StatusOr<AcceptedDeliveries> ComposedWorkStore::accept_deliveries(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  return roles_.inbox->accept_deliveries(messages, receiving_service_id);
}
absl::Status ComposedWorkStore::keep_accepted(std::span<const InboxMessage> messages,
                                              const Uuid& receiving_service_id) {
  return roles_.inbox->keep_accepted(messages, receiving_service_id);
}

// EventStore
absl::StatusOr<std::vector<StoredEvent>> ComposedWorkStore::read_stream(const Uuid& stream_id) {
  return roles_.events->read_stream(stream_id);
}

// PerspectiveStore
absl::Status ComposedWorkStore::add_perspective_association(std::string_view message_type,
                                                            std::string_view perspective) {
  return roles_.perspectives->add_perspective_association(message_type, perspective);
}
absl::StatusOr<std::vector<PerspectiveWork>> ComposedWorkStore::claim_perspective_work(
    std::size_t max_items) {
  return roles_.perspectives->claim_perspective_work(max_items);
}
absl::StatusOr<PerspectiveCompletion> ComposedWorkStore::complete_perspective_work(
    std::span<const MessageId> event_work_ids) {
  return roles_.perspectives->complete_perspective_work(event_work_ids);
}
absl::Status ComposedWorkStore::fail_perspective_work(const MessageId& event_work_id,
                                                      std::string_view error, bool dead_letter,
                                                      const std::optional<RetryDecision>& retry) {
  return roles_.perspectives->fail_perspective_work(event_work_id, error, dead_letter, retry);
}
absl::StatusOr<std::optional<PerspectiveModelRow>> ComposedWorkStore::load_perspective_model(
    std::string_view perspective, const Uuid& stream_id) {
  return roles_.perspectives->load_perspective_model(perspective, stream_id);
}
absl::StatusOr<std::vector<PerspectiveModelEntry>> ComposedWorkStore::list_perspective_models(
    std::string_view perspective, const std::optional<Uuid>& after_stream, std::size_t limit) {
  return roles_.perspectives->list_perspective_models(perspective, after_stream, limit);
}
absl::Status ComposedWorkStore::save_perspective_model(std::string_view perspective,
                                                       const Uuid& stream_id,
                                                       std::string_view model_json,
                                                       const MessageId& last_event_id) {
  return roles_.perspectives->save_perspective_model(perspective, stream_id, model_json,
                                                     last_event_id);
}

// PerspectiveSyncStore
absl::StatusOr<std::optional<PerspectiveCursor>> ComposedWorkStore::load_perspective_cursor(
    std::string_view perspective, const Uuid& stream_id) {
  return roles_.perspective_sync->load_perspective_cursor(perspective, stream_id);
}

absl::Status ComposedWorkStore::save_perspective_cursor(const PerspectiveCursor& cursor) {
  return roles_.perspective_sync->save_perspective_cursor(cursor);
}

absl::StatusOr<std::vector<EventSyncState>> ComposedWorkStore::event_sync_states(
    std::span<const MessageId> event_ids) {
  return roles_.perspective_sync->event_sync_states(event_ids);
}

// StageWorkStore
absl::StatusOr<std::vector<LifecycleWork>> ComposedWorkStore::claim_lifecycle_work(
    std::size_t max_items) {
  return roles_.stage_work->claim_lifecycle_work(max_items);
}
absl::StatusOr<bool> ComposedWorkStore::renew_lifecycle_work(const MessageId& event_id) {
  return roles_.stage_work->renew_lifecycle_work(event_id);
}
absl::Status ComposedWorkStore::complete_lifecycle_work(const MessageId& event_id) {
  return roles_.stage_work->complete_lifecycle_work(event_id);
}
absl::Status ComposedWorkStore::fail_lifecycle_work(const MessageId& event_id,
                                                    std::string_view error, bool dead_letter,
                                                    const std::optional<RetryDecision>& retry) {
  return roles_.stage_work->fail_lifecycle_work(event_id, error, dead_letter, retry);
}
absl::Status ComposedWorkStore::store_detached_work(const DetachedWork& work) {
  return roles_.stage_work->store_detached_work(work);
}
absl::StatusOr<std::vector<DetachedWork>> ComposedWorkStore::claim_detached_work(
    std::size_t max_items) {
  return roles_.stage_work->claim_detached_work(max_items);
}
absl::StatusOr<bool> ComposedWorkStore::complete_detached_work(const MessageId& work_id) {
  return roles_.stage_work->complete_detached_work(work_id);
}
absl::Status ComposedWorkStore::fail_detached_work(const MessageId& work_id, std::string_view error,
                                                   bool dead_letter,
                                                   const std::optional<RetryDecision>& retry) {
  return roles_.stage_work->fail_detached_work(work_id, error, dead_letter, retry);
}

// WorkCoordination
absl::StatusOr<std::vector<WorkItem>> ComposedWorkStore::process_work_batch(
    const WorkBatchRequest& request) {
  return roles_.coordination->process_work_batch(request);
}
absl::Status ComposedWorkStore::complete_work(std::span<const WorkCompletion> completions,
                                              std::span<const WorkFailure> failures) {
  return roles_.coordination->complete_work(completions, failures);
}
absl::Status ComposedWorkStore::defer_work(std::span<const WorkDeferral> deferrals) {
  return roles_.coordination->defer_work(deferrals);
}
absl::StatusOr<std::vector<MessageId>> ComposedWorkStore::renew_leases(
    std::span<const WorkLease> leases) {
  return roles_.coordination->renew_leases(leases);
}
absl::Status ComposedWorkStore::record_receptor_invocations(
    const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) {
  return roles_.coordination->record_receptor_invocations(message_id, records);
}
absl::StatusOr<std::vector<ReceptorInvocationRecord>> ComposedWorkStore::find_receptor_invocations(
    const MessageId& message_id, std::string_view receptor_id) {
  return roles_.coordination->find_receptor_invocations(message_id, receptor_id);
}

// StoreOperations
absl::StatusOr<std::vector<DeadLetter>> ComposedWorkStore::dead_letters(std::size_t limit) {
  return roles_.operations->dead_letters(limit);
}
absl::StatusOr<std::size_t> ComposedWorkStore::requeue_dead_letters(
    std::span<const MessageId> ids) {
  return roles_.operations->requeue_dead_letters(ids);
}
absl::StatusOr<PurgeCounts> ComposedWorkStore::purge(const RetentionOptions& retention) {
  return roles_.operations->purge(retention);
}

}  // namespace whizbang
