// MemoryCore: storage, completions and failures, and the coordination cycle.
#include <algorithm>

#include "memory/memory_core.hpp"
#include "whizbang/observability/row_quarantine.hpp"

namespace whizbang {

using memory_store::FailureColumns;

RowState* MemoryCore::find_state(WorkSource source, const MessageId& id) {
  if (source == WorkSource::Outbox) {
    auto it = state.outbox.find(id);
    return it == state.outbox.end() ? nullptr : &it->second.state;
  }
  auto it = state.inbox.find(id);
  return it == state.inbox.end() ? nullptr : &it->second.state;
}

void MemoryCore::complete(std::span<const WorkCompletion> completions,
                          std::span<const WorkFailure> failures, bool debug_mode) {
  const TimePoint at = now();
  for (const WorkCompletion& completion : completions) {
    RowState* row = find_state(completion.source, completion.message_id);
    if (row == nullptr || !owned(row->instance_id)) continue;  // gone, or another instance's
    const MessageStatus deleting_flag = completion.source == WorkSource::Outbox
                                            ? MessageStatus::Published
                                            : MessageStatus::EventStored;
    if (!debug_mode && has_status(completion.status, deleting_flag)) {
      if (completion.source == WorkSource::Outbox) {
        // Kept by the id's age: from when it was stored (RetentionOptions).
        state.outbox_tombstones.emplace(completion.message_id, row->created_at);
        state.outbox.erase(completion.message_id);
      } else {
        state.inbox.erase(completion.message_id);
      }
      continue;
    }
    row->status = row->status | completion.status;
    if (completion.status != MessageStatus::None) row->processed_at = at;
    if (completion.source == WorkSource::Outbox &&
        has_status(completion.status, MessageStatus::Published)) {
      row->published_at = at;
    }
    row->instance_id.reset();
    row->lease_expiry.reset();
  }
  for (const WorkFailure& failure : failures) {
    RowState* row = find_state(failure.source, failure.message_id);
    if (row == nullptr || !owned(row->instance_id)) continue;
    row->status = row->status | failure.status | MessageStatus::Failed;
    const bool outbox = failure.source == WorkSource::Outbox;
    const std::string& type = outbox ? state.outbox.at(failure.message_id).message.message_type
                                     : state.inbox.at(failure.message_id).message.message_type;
    const std::optional<Uuid>& stream = outbox
                                            ? state.outbox.at(failure.message_id).message.stream_id
                                            : state.inbox.at(failure.message_id).message.stream_id;
    fail({row->attempts, row->error, row->failure_reason, row->instance_id, row->lease_expiry,
          row->scheduled_for, row->dead_lettered_at},
         outbox ? "wh_outbox" : "wh_inbox", failure.message_id, type, stream, failure.error,
         failure.reason, failure.dead_letter, failure.retry);
  }
}

void MemoryCore::fail(FailureColumns row, std::string_view table, const MessageId& id,
                      const std::string& message_type, const std::optional<Uuid>& stream_id,
                      std::string_view error, FailureReason reason, bool dead_letter,
                      const std::optional<RetryDecision>& retry) {
  const TimePoint at = now();
  const int max_attempts =
      retry && retry->max_attempts > 0 ? retry->max_attempts : options.max_attempts;
  const bool exhausted = max_attempts > 0 && row.attempts + 1 >= max_attempts;
  const bool dead = dead_letter || exhausted;
  row.error = std::string(error);
  row.failure_reason = !dead_letter && exhausted ? FailureReason::MaxAttemptsExceeded : reason;
  row.scheduled_for =
      dead ? std::nullopt
           : std::optional<TimePoint>(
                 at + (retry ? std::chrono::duration_cast<TimePoint::duration>(retry->wait)
                             : TimePoint::duration(failure_backoff(row.attempts))));
  row.dead_lettered_at = dead ? std::optional<TimePoint>(at) : std::nullopt;
  row.attempts += 1;
  row.instance_id.reset();
  row.lease_expiry.reset();
  store_internal::report_failure(options,
                                 {table, id, message_type, row.attempts, dead, stream_id, error});
}

bool MemoryCore::append_event(const MessageId& id, const std::string& message_type,
                              const Uuid& stream_id, const std::string& envelope_json,
                              RowState& row, std::string_view table) {
  if (has_status(row.status, MessageStatus::EventStored)) return true;
  absl::StatusOr<store_internal::EventParts> parts = store_internal::event_parts(envelope_json);
  const TimePoint at = now();
  if (!parts.ok()) {
    std::string reason(parts.status().message());
    log_quarantined_row(options.logger, table, id, reason);
    row.status = row.status | MessageStatus::Failed;
    row.error = std::move(reason);
    row.failure_reason = FailureReason::SerializationError;
    row.dead_lettered_at = at;
    row.scheduled_for.reset();
    row.instance_id.reset();
    row.lease_expiry.reset();
    return false;
  }
  if (!state.events.contains(id)) {
    auto& versions = state.streams[stream_id];
    const std::int64_t version = versions.empty() ? 1 : versions.rbegin()->first + 1;
    versions.emplace(version, id);
    state.events.emplace(id, StoredEvent{id, stream_id, message_type, std::move(parts->event_data),
                                         std::move(parts->metadata), version, at});
    auto [first, last] = state.perspective_associations.equal_range(message_type);
    for (auto it = first; it != last; ++it) {
      PerspectiveEventRow event;
      event.event_work_id = MessageId::mint();
      event.stream_id = stream_id;
      event.perspective_name = it->second;
      event.event_id = id;
      event.stream_version = version;
      event.instance_id = self();
      event.lease_expiry = at + options.lease_duration;
      state.perspective_events.try_emplace({stream_id, it->second, version}, std::move(event));
    }
  }
  row.status = row.status | MessageStatus::EventStored;
  return true;
}

std::vector<WorkItem> MemoryCore::process(const WorkBatchRequest& request) {
  const TimePoint at = now();
  state.instances[self()] = {options.instance, at};
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
  // Claims up to max_items rows of one source in message-id order. A stream is held back from
  // its first live row that waits elsewhere (sql::claimable says the same in SQL).
  auto claim = [&](auto& rows, WorkSource source, const auto& newly_stored, const char* table) {
    std::size_t taken = 0;
    std::set<Uuid> held_back;
    for (auto& [id, row] : rows) {
      if (taken == request.max_items) break;
      RowState& row_state = row.state;
      if (row_state.processed_at || row_state.dead_lettered_at) continue;
      if constexpr (requires { row.message.destination; }) {
        if (request.event_store_outbox_only && row.message.destination) continue;
      }
      const std::optional<Uuid>& stream = row.message.stream_id;
      if (stream && held_back.contains(*stream)) continue;
      if (waits_elsewhere(row_state.instance_id, row_state.lease_expiry, row_state.scheduled_for,
                          at)) {
        if (stream) held_back.insert(*stream);
        continue;
      }
      // Its previous lease lapsed without a completion: the handling or publish runs again.
      const bool orphaned = row_state.instance_id.has_value() && row_state.lease_expiry &&
                            *row_state.lease_expiry < at;
      row_state.instance_id = self();
      row_state.lease_expiry = at + options.lease_duration;
      if (row.message.is_event && stream &&
          !append_event(id, row.message.message_type, *stream, row.message.envelope_json, row_state,
                        table)) {
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
      item.stream_id = stream;
      item.is_event = row.message.is_event;
      item.status = row_state.status;
      item.attempts = row_state.attempts;
      item.is_newly_stored = newly_stored.contains(id);
      item.is_orphaned = orphaned;
      item.error = row_state.error;
      item.lease_expiry = *row_state.lease_expiry;
      items.push_back(std::move(item));
    }
  };
  if (request.claim_outbox) claim(state.outbox, WorkSource::Outbox, new_outbox, "wh_outbox");
  if (request.claim_inbox) claim(state.inbox, WorkSource::Inbox, new_inbox, "wh_inbox");
  renew(request.renewals);
  return items;
}

std::vector<MessageId> MemoryCore::renew(std::span<const WorkLease> leases) {
  const TimePoint at = now();
  std::vector<MessageId> renewed;
  for (const WorkLease& lease : leases) {
    RowState* row = find_state(lease.source, lease.message_id);
    if (row == nullptr || row->instance_id != self() || row->processed_at ||
        row->dead_lettered_at) {
      continue;
    }
    row->lease_expiry = at + options.lease_duration;
    renewed.push_back(lease.message_id);
  }
  return renewed;
}

}  // namespace whizbang
