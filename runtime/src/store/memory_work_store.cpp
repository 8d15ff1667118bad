#include "whizbang/store/memory_work_store.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "store/store_support.hpp"
#include "store/transaction_gate.hpp"

namespace whizbang {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

struct State {
  std::map<MessageId, OutboxRow> outbox;
  // Ids of published (deleted) outbox rows: a re-emission of one is still a duplicate.
  std::set<MessageId> outbox_tombstones;
  std::map<MessageId, InboxRow> inbox;
  std::map<MessageId, TimePoint> message_deduplication;
  std::map<MessageId, StoredEvent> events;
  // stream -> version -> event id
  std::map<Uuid, std::map<std::int64_t, MessageId>> streams;
  std::map<std::tuple<Uuid, std::string, MessageId>, PerspectiveEventRow> perspective_events;
  std::multimap<std::string, std::string> perspective_associations;
  std::map<std::pair<std::string, Uuid>, PerspectiveModelRow> perspective_models;
  std::map<std::tuple<MessageId, std::string, std::string, std::string>,
           std::pair<std::int64_t, ReceptorInvocationRecord>>
      invocations;
  std::int64_t invocation_sequence = 0;
  std::map<Uuid, std::pair<ServiceInstance, TimePoint>> instances;
};

}  // namespace

struct MemoryWorkStore::Impl final : store_internal::TransactionBackend {
  explicit Impl(StoreOptions store_options)
      : options(store_internal::normalize(std::move(store_options))), gate(*this) {}

  absl::Status backend_begin(bool explicit_transaction) override {
    // Single calls validate before they mutate, so only explicit transactions need a snapshot.
    if (explicit_transaction) snapshot = state;
    return absl::OkStatus();
  }
  absl::Status backend_commit() override {
    snapshot.reset();
    return absl::OkStatus();
  }
  void backend_rollback() override {
    if (snapshot) state = std::move(*snapshot);
    snapshot.reset();
  }

  TimePoint now() const { return options.now(); }

  std::vector<StoredOutboxRow> store_outbox(std::span<const OutboxMessage> messages) {
    std::vector<StoredOutboxRow> rows;
    rows.reserve(messages.size());
    const TimePoint at = now();
    for (const OutboxMessage& message : messages) {
      const bool known = state.outbox.contains(message.message_id) ||
                         state.outbox_tombstones.contains(message.message_id);
      if (!known) {
        OutboxRow row{message, {}};
        row.state.status = MessageStatus::Stored;
        row.state.created_at = at;
        row.state.instance_id = options.instance.instance_id;
        row.state.lease_expiry = at + options.lease_duration;
        row.state.scheduled_for = message.scheduled_for;
        state.outbox.emplace(message.message_id, std::move(row));
      }
      rows.push_back({message.message_id, message.stream_id, !known});
    }
    if (!messages.empty()) gate.note({.outbox_written = true});
    return rows;
  }

  std::vector<MessageId> store_inbox(std::span<const InboxMessage> messages,
                                     const Uuid& receiving_service_id) {
    std::vector<MessageId> stored;
    const TimePoint at = now();
    for (const InboxMessage& message : messages) {
      if (!state.message_deduplication.emplace(message.message_id, at).second) continue;
      InboxRow row{message, {}};
      if (row.message.source_service_id.is_nil()) {
        row.message.source_service_id = receiving_service_id;
      }
      row.state.status = MessageStatus::Stored;
      row.state.created_at = at;
      state.inbox.emplace(message.message_id, std::move(row));
      stored.push_back(message.message_id);
    }
    if (!stored.empty()) gate.note({.inbox_written = true});
    return stored;
  }

  void complete(std::span<const WorkCompletion> completions, std::span<const WorkFailure> failures,
                bool debug_mode) {
    const TimePoint at = now();
    for (const WorkCompletion& completion : completions) {
      RowState* state_ptr = nullptr;
      if (completion.source == WorkSource::Outbox) {
        auto it = state.outbox.find(completion.message_id);
        if (it == state.outbox.end()) continue;
        if (!debug_mode && has_status(completion.status, MessageStatus::Published)) {
          state.outbox_tombstones.insert(completion.message_id);
          state.outbox.erase(it);
          continue;
        }
        state_ptr = &it->second.state;
        if (has_status(completion.status, MessageStatus::Published)) state_ptr->published_at = at;
      } else {
        auto it = state.inbox.find(completion.message_id);
        if (it == state.inbox.end()) continue;
        if (!debug_mode && has_status(completion.status, MessageStatus::EventStored)) {
          state.inbox.erase(it);
          continue;
        }
        state_ptr = &it->second.state;
      }
      state_ptr->status = state_ptr->status | completion.status;
      if (completion.status != MessageStatus::None) state_ptr->processed_at = at;
      state_ptr->instance_id.reset();
      state_ptr->lease_expiry.reset();
    }
    for (const WorkFailure& failure : failures) {
      RowState* row = find_state(failure.source, failure.message_id);
      if (row == nullptr) continue;
      row->status = row->status | failure.status | MessageStatus::Failed;
      row->error = failure.error;
      row->failure_reason = failure.reason;
      row->scheduled_for = at + failure_backoff(row->attempts);
      row->attempts += 1;
      row->instance_id.reset();
      row->lease_expiry.reset();
      if (failure.quarantine) {
        row->processed_at = at;
        row->scheduled_for.reset();
      }
    }
  }

  RowState* find_state(WorkSource source, const MessageId& id) {
    if (source == WorkSource::Outbox) {
      auto it = state.outbox.find(id);
      return it == state.outbox.end() ? nullptr : &it->second.state;
    }
    auto it = state.inbox.find(id);
    return it == state.inbox.end() ? nullptr : &it->second.state;
  }

  bool claimable(const RowState& row, TimePoint at) const {
    if (row.processed_at) return false;
    if (row.scheduled_for && *row.scheduled_for > at) return false;
    if (!row.instance_id) return true;
    return *row.instance_id == options.instance.instance_id || *row.lease_expiry < at;
  }

  // Leases `row` to this instance; true when its previous lease had lapsed (orphaned).
  bool lease(RowState& row, TimePoint at) {
    const bool orphaned = row.instance_id.has_value() && *row.lease_expiry < at;
    row.instance_id = options.instance.instance_id;
    row.lease_expiry = at + options.lease_duration;
    return orphaned;
  }

  // Appends an event row to the event store; a row whose envelope cannot be read is quarantined
  // (returns false) instead.
  bool append_event(const MessageId& id, const std::string& message_type, const Uuid& stream_id,
                    const std::string& envelope_json, RowState& row, std::string_view table) {
    if (has_status(row.status, MessageStatus::EventStored)) return true;
    absl::StatusOr<store_internal::EventParts> parts = store_internal::event_parts(envelope_json);
    const TimePoint at = now();
    if (!parts.ok()) {
      std::string reason(parts.status().message());
      store_internal::report_quarantined(options.logger, table, id, reason);
      row.status = row.status | MessageStatus::Failed;
      row.error = std::move(reason);
      row.failure_reason = FailureReason::SerializationError;
      row.processed_at = at;
      row.instance_id.reset();
      row.lease_expiry.reset();
      return false;
    }
    if (!state.events.contains(id)) {
      auto& versions = state.streams[stream_id];
      const std::int64_t version = versions.empty() ? 1 : versions.rbegin()->first + 1;
      versions.emplace(version, id);
      state.events.emplace(id,
                           StoredEvent{id, stream_id, message_type, std::move(parts->event_data),
                                       std::move(parts->metadata), version, at});
      auto [first, last] = state.perspective_associations.equal_range(message_type);
      for (auto it = first; it != last; ++it) {
        PerspectiveEventRow event{
            MessageId::mint(),           stream_id, it->second, id, options.instance.instance_id,
            at + options.lease_duration, 0,         0,          {}, std::nullopt};
        state.perspective_events.try_emplace({stream_id, it->second, id}, std::move(event));
      }
    }
    row.status = row.status | MessageStatus::EventStored;
    return true;
  }

  std::vector<WorkItem> process(const WorkBatchRequest& request) {
    const TimePoint at = now();
    state.instances[options.instance.instance_id] = {options.instance, at};
    complete(request.completions, request.failures, request.debug_mode);
    std::set<MessageId> new_outbox;
    for (const StoredOutboxRow& row : store_outbox(request.new_outbox)) {
      if (row.was_newly_created) new_outbox.insert(row.message_id);
    }
    report_new(request.new_outbox, new_outbox);
    std::set<MessageId> new_inbox;
    for (const MessageId& id : store_inbox(request.new_inbox, request.receiving_service_id)) {
      new_inbox.insert(id);
    }

    std::vector<WorkItem> items;
    // Claims up to max_items claimable rows of one source (outbox or inbox) into `items`.
    auto claim = [&](auto& rows, WorkSource source, const auto& newly_stored, const char* table) {
      std::size_t taken = 0;
      for (auto& [id, row] : rows) {
        if (taken == request.max_items) break;
        if (!claimable(row.state, at)) continue;
        const bool orphaned = lease(row.state, at);
        if (row.message.is_event && row.message.stream_id &&
            !append_event(id, row.message.message_type, *row.message.stream_id,
                          row.message.envelope_json, row.state, table)) {
          continue;
        }
        ++taken;
        WorkItem item;
        item.source = source;
        item.message_id = id;
        if constexpr (requires { row.message.destination; }) {
          item.destination = row.message.destination;
        } else {
          item.handler_name = row.message.handler_name;
          item.source_service_id = row.message.source_service_id;
        }
        item.message_type = row.message.message_type;
        item.envelope_json = row.message.envelope_json;
        item.stream_id = row.message.stream_id;
        item.is_event = row.message.is_event;
        item.status = row.state.status;
        item.attempts = row.state.attempts;
        item.is_newly_stored = newly_stored.contains(id);
        item.is_orphaned = orphaned;
        item.error = row.state.error;
        item.lease_expiry = *row.state.lease_expiry;
        items.push_back(std::move(item));
      }
    };
    if (request.claim_outbox) claim(state.outbox, WorkSource::Outbox, new_outbox, "wh_outbox");
    if (request.claim_inbox) claim(state.inbox, WorkSource::Inbox, new_inbox, "wh_inbox");
    for (const WorkLease& renewal : request.renewals) {
      RowState* row = find_state(renewal.source, renewal.message_id);
      if (row != nullptr && row->instance_id == options.instance.instance_id) {
        row->lease_expiry = at + options.lease_duration;
      }
    }
    return items;
  }

  void report_new(std::span<const OutboxMessage> messages, const std::set<MessageId>& created) {
    std::vector<StoredOutboxRow> rows;
    rows.reserve(messages.size());
    for (const OutboxMessage& message : messages) {
      rows.push_back({message.message_id, message.stream_id, created.contains(message.message_id)});
    }
    store_internal::report_deduplicated(options, messages, rows);
  }

  StoreOptions options;
  store_internal::TransactionGate gate;
  State state;
  std::optional<State> snapshot;
};

MemoryWorkStore::MemoryWorkStore(StoreOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
MemoryWorkStore::~MemoryWorkStore() = default;

const StoreOptions& MemoryWorkStore::options() const { return impl_->options; }
absl::Status MemoryWorkStore::begin() { return impl_->gate.begin(); }
absl::Status MemoryWorkStore::commit() { return impl_->gate.commit(); }
absl::Status MemoryWorkStore::rollback() { return impl_->gate.rollback(); }
bool MemoryWorkStore::in_transaction() const { return impl_->gate.in_transaction(); }

absl::StatusOr<std::vector<StoredOutboxRow>> MemoryWorkStore::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<StoredOutboxRow>> {
    std::vector<StoredOutboxRow> rows = impl_->store_outbox(messages);
    store_internal::report_deduplicated(impl_->options, messages, rows);
    return rows;
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

absl::StatusOr<std::vector<PerspectiveWork>> MemoryWorkStore::claim_perspective_work(
    std::size_t max_items) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveWork>> {
    const TimePoint at = impl_->now();
    const Uuid& self = impl_->options.instance.instance_id;
    std::vector<PerspectiveEventRow*> eligible;
    for (auto& [key, row] : impl_->state.perspective_events) {
      const bool free = !row.instance_id || !row.lease_expiry || *row.lease_expiry < at ||
                        *row.instance_id == self;
      if (free && (!row.scheduled_for || *row.scheduled_for <= at)) eligible.push_back(&row);
    }
    std::sort(eligible.begin(), eligible.end(), [](const auto* a, const auto* b) {
      return std::tie(a->stream_id, a->event_id, a->perspective_name) <
             std::tie(b->stream_id, b->event_id, b->perspective_name);
    });
    if (eligible.size() > max_items) eligible.resize(max_items);
    std::vector<PerspectiveWork> work;
    for (PerspectiveEventRow* row : eligible) {
      row->instance_id = self;
      row->lease_expiry = at + impl_->options.lease_duration;
      const StoredEvent& event = impl_->state.events.at(row->event_id);
      work.push_back({row->event_work_id, row->stream_id, row->perspective_name, row->event_id,
                      event.event_type, event.event_data, event.metadata, event.version,
                      row->attempts});
    }
    return work;
  });
}

absl::StatusOr<PerspectiveCompletion> MemoryWorkStore::complete_perspective_work(
    std::span<const MessageId> event_work_ids) {
  return impl_->gate.run([&]() -> absl::StatusOr<PerspectiveCompletion> {
    auto& rows = impl_->state.perspective_events;
    std::vector<MessageId> touched;
    for (const MessageId& work_id : event_work_ids) {
      auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& entry) {
        return entry.second.event_work_id == work_id;
      });
      if (it == rows.end()) continue;
      touched.push_back(it->second.event_id);
      rows.erase(it);
    }
    PerspectiveCompletion completion;
    for (const MessageId& event_id : touched) {
      const bool remains = std::any_of(rows.begin(), rows.end(), [&](const auto& entry) {
        return entry.second.event_id == event_id;
      });
      if (!remains &&
          std::find(completion.events_completed.begin(), completion.events_completed.end(),
                    event_id) == completion.events_completed.end()) {
        completion.events_completed.push_back(event_id);
      }
    }
    return completion;
  });
}

absl::Status MemoryWorkStore::fail_perspective_work(const MessageId& event_work_id,
                                                    std::string_view error) {
  return impl_->gate.run([&]() -> absl::Status {
    for (auto& [key, row] : impl_->state.perspective_events) {
      if (row.event_work_id != event_work_id) continue;
      row.scheduled_for = impl_->now() + failure_backoff(row.attempts);
      row.attempts += 1;
      row.error = std::string(error);
      row.instance_id.reset();
      row.lease_expiry.reset();
    }
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
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.event_id < b.event_id; });
    return rows;
  });
}

int MemoryWorkStore::add_commit_listener(CommitListener listener) {
  return impl_->gate.add_listener(std::move(listener));
}
void MemoryWorkStore::remove_commit_listener(int id) { impl_->gate.remove_listener(id); }

}  // namespace whizbang
