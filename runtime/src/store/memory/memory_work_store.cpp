// MemoryWorkStore: construction, transactions, storage, the cycle, records and reads.
#include <algorithm>
#include <cctype>

#include "memory/memory_store_impl.hpp"

namespace whizbang {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

MemoryWorkStore::MemoryWorkStore(StoreOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
MemoryWorkStore::~MemoryWorkStore() = default;

const StoreOptions& MemoryWorkStore::options() const { return impl_->options; }
absl::Status MemoryWorkStore::begin() { return impl_->gate.begin(); }
absl::Status MemoryWorkStore::commit() { return impl_->gate.commit(); }
absl::Status MemoryWorkStore::rollback() { return impl_->gate.rollback(); }
bool MemoryWorkStore::in_transaction() const { return impl_->gate.in_transaction(); }
absl::Status MemoryWorkStore::savepoint() { return impl_->gate.savepoint(); }
absl::Status MemoryWorkStore::release_savepoint() {
  return impl_->gate.end_savepoint(/*keep=*/true);
}
absl::Status MemoryWorkStore::rollback_to_savepoint() {
  return impl_->gate.end_savepoint(/*keep=*/false);
}

absl::StatusOr<std::vector<StoredOutboxRow>> MemoryWorkStore::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<StoredOutboxRow>> {
    std::vector<StoredOutboxRow> rows = impl_->store_outbox(messages);
    store_internal::report_deduplicated(impl_->options, messages, rows);
    return rows;
  });
}

absl::StatusOr<bool> MemoryWorkStore::remember_dispatch(const MessageId& id) {
  return impl_->gate.run([&]() -> absl::StatusOr<bool> {
    return impl_->state.dispatch_keys.emplace(id, impl_->now()).second;
  });
}

absl::StatusOr<std::vector<MessageId>> MemoryWorkStore::store_inbox_messages(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<MessageId>> {
    return impl_->store_inbox(messages, receiving_service_id);
  });
}

absl::StatusOr<std::vector<WorkItem>> MemoryWorkStore::process_work_batch(
    const WorkBatchRequest& request) {
  return impl_->gate.run(
      [&]() -> absl::StatusOr<std::vector<WorkItem>> { return impl_->process(request); });
}

absl::Status MemoryWorkStore::complete_work(std::span<const WorkCompletion> completions,
                                            std::span<const WorkFailure> failures) {
  return impl_->gate.run([&]() -> absl::Status {
    impl_->complete(completions, failures, /*debug_mode=*/false);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<MessageId>> MemoryWorkStore::renew_leases(
    std::span<const WorkLease> leases) {
  return impl_->gate.run(
      [&]() -> absl::StatusOr<std::vector<MessageId>> { return impl_->renew(leases); });
}

absl::Status MemoryWorkStore::record_receptor_invocations(
    const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) {
  return impl_->gate.run([&]() -> absl::Status {
    for (const ReceptorInvocationRecord& record : records) {
      impl_->state.invocations.try_emplace(
          {message_id, record.receptor_id.str(), lower(record.service_name), record.perspective},
          impl_->state.invocation_sequence++, record);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<ReceptorInvocationRecord>> MemoryWorkStore::find_receptor_invocations(
    const MessageId& message_id, std::string_view receptor_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<ReceptorInvocationRecord>> {
    std::vector<std::pair<std::int64_t, ReceptorInvocationRecord>> found;
    for (const auto& [key, value] : impl_->state.invocations) {
      if (std::get<0>(key) == message_id && std::get<1>(key) == receptor_id) found.push_back(value);
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<ReceptorInvocationRecord> records;
    for (auto& [sequence, record] : found) records.push_back(std::move(record));
    return records;
  });
}

absl::Status MemoryWorkStore::add_perspective_association(std::string_view message_type,
                                                          std::string_view perspective) {
  return impl_->gate.run([&]() -> absl::Status {
    auto [first, last] =
        impl_->state.perspective_associations.equal_range(std::string(message_type));
    for (auto it = first; it != last; ++it) {
      if (it->second == perspective) return absl::OkStatus();
    }
    impl_->state.perspective_associations.emplace(message_type, perspective);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<PerspectiveModelRow>> MemoryWorkStore::load_perspective_model(
    std::string_view perspective, const Uuid& stream_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::optional<PerspectiveModelRow>> {
    auto it = impl_->state.perspective_models.find({std::string(perspective), stream_id});
    if (it == impl_->state.perspective_models.end()) return std::optional<PerspectiveModelRow>();
    return std::optional<PerspectiveModelRow>(it->second);
  });
}

absl::Status MemoryWorkStore::save_perspective_model(std::string_view perspective,
                                                     const Uuid& stream_id,
                                                     std::string_view model_json,
                                                     const MessageId& last_event_id) {
  return impl_->gate.run([&]() -> absl::Status {
    impl_->state.perspective_models[{std::string(perspective), stream_id}] =
        PerspectiveModelRow{std::string(model_json), last_event_id, impl_->now()};
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<OutboxRow>> MemoryWorkStore::find_outbox_row(const MessageId& id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::optional<OutboxRow>> {
    auto it = impl_->state.outbox.find(id);
    if (it == impl_->state.outbox.end()) return std::optional<OutboxRow>();
    return std::optional<OutboxRow>(it->second);
  });
}

absl::StatusOr<std::optional<InboxRow>> MemoryWorkStore::find_inbox_row(const MessageId& id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::optional<InboxRow>> {
    auto it = impl_->state.inbox.find(id);
    if (it == impl_->state.inbox.end()) return std::optional<InboxRow>();
    return std::optional<InboxRow>(it->second);
  });
}

absl::StatusOr<std::vector<StoredEvent>> MemoryWorkStore::read_stream(const Uuid& stream_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<StoredEvent>> {
    std::vector<StoredEvent> events;
    auto stream = impl_->state.streams.find(stream_id);
    if (stream == impl_->state.streams.end()) return events;
    for (const auto& [version, id] : stream->second) events.push_back(impl_->state.events.at(id));
    return events;
  });
}

absl::StatusOr<std::vector<PerspectiveEventRow>> MemoryWorkStore::perspective_events(
    const Uuid& stream_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveEventRow>> {
    std::vector<PerspectiveEventRow> rows;
    for (const auto& [key, row] : impl_->state.perspective_events) {
      if (std::get<0>(key) == stream_id) rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.stream_version < b.stream_version;
    });
    return rows;
  });
}

int MemoryWorkStore::add_commit_listener(CommitListener listener) {
  return impl_->gate.add_listener(std::move(listener));
}
void MemoryWorkStore::remove_commit_listener(int id) { impl_->gate.remove_listener(id); }

}  // namespace whizbang
