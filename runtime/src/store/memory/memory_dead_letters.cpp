// MemoryDeadLetters: the dead-letter operations role on memory (memory_dead_letters.hpp).
#include "memory/memory_dead_letters.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace whizbang {

namespace memory_store {

std::vector<DeadLetter> all_dead_letters(const State& state) {
  std::vector<DeadLetter> letters;
  for (const auto& [id, row] : state.outbox) {
    if (!row.state.dead_lettered_at) continue;
    letters.push_back({DeadLetterSource::Outbox, id, row.message.message_type,
                       row.message.destination.value_or("(event store)"), row.message.stream_id,
                       row.state.attempts, row.state.error, row.state.failure_reason,
                       *row.state.dead_lettered_at});
  }
  for (const auto& [id, row] : state.inbox) {
    if (!row.state.dead_lettered_at) continue;
    letters.push_back({DeadLetterSource::Inbox, id, row.message.message_type,
                       row.message.handler_name, row.message.stream_id, row.state.attempts,
                       row.state.error, row.state.failure_reason, *row.state.dead_lettered_at});
  }
  auto event_type = [&](const MessageId& event_id) {
    auto event = state.events.find(event_id);
    return event == state.events.end() ? std::string() : event->second.event_type;
  };
  for (const auto& [key, row] : state.perspective_events) {
    if (!row.dead_lettered_at) continue;
    letters.push_back({DeadLetterSource::PerspectiveEvent, row.event_work_id,
                       event_type(row.event_id), row.perspective_name, row.stream_id, row.attempts,
                       row.error, row.failure_reason, *row.dead_lettered_at});
  }
  for (const auto& [event_id, row] : state.lifecycle) {
    if (!row.dead_lettered_at) continue;
    letters.push_back({DeadLetterSource::LifecycleCompletion, event_id, event_type(event_id),
                       "PostAllPerspectives/PostLifecycle", row.stream_id, row.attempts, row.error,
                       row.failure_reason, *row.dead_lettered_at});
  }
  for (const auto& [work_id, row] : state.detached) {
    if (!row.dead_lettered_at) continue;
    letters.push_back({DeadLetterSource::DetachedWork, work_id, row.work.message_type,
                       row.work.receptor_id, std::nullopt, row.work.attempts, row.error,
                       row.failure_reason, *row.dead_lettered_at});
  }
  std::sort(letters.begin(), letters.end(), [](const DeadLetter& a, const DeadLetter& b) {
    return std::tie(a.dead_lettered_at, a.id, a.source) <
           std::tie(b.dead_lettered_at, b.id, b.source);
  });
  return letters;
}

}  // namespace memory_store

namespace {

// What the SQL filter (dead_letter_shapes::filter) selects, on one dead letter.
bool matches_filter(const DeadLetter& letter, const DeadLetterFilter& filter) {
  if (filter.source && letter.source != *filter.source) return false;
  if (filter.target && letter.target != *filter.target) return false;
  if (filter.message_type && letter.message_type != *filter.message_type) return false;
  if (filter.reason && letter.reason != *filter.reason) return false;
  if (filter.error_contains && letter.error.find(*filter.error_contains) == std::string::npos) {
    return false;
  }
  if (filter.since && letter.dead_lettered_at < *filter.since) return false;
  if (filter.until && letter.dead_lettered_at > *filter.until) return false;
  if (filter.error_first_line && error_first_line(letter.error) != *filter.error_first_line) {
    return false;
  }
  return true;
}

// Whether `letter` comes after the cursor in the listing's order.
bool is_after_cursor(const DeadLetter& letter, const DeadLetterCursor& cursor) {
  return std::tie(letter.dead_lettered_at, letter.id, letter.source) >
         std::tie(cursor.dead_lettered_at, cursor.id, cursor.source);
}

// A fresh set of attempts, due now; the last error stays for the record.
template <class Row>
void give_fresh_attempts(Row& row) {
  row.dead_lettered_at.reset();
  row.attempts = 0;
  row.scheduled_for.reset();
  row.instance_id.reset();
  row.lease_expiry.reset();
}

}  // namespace

absl::StatusOr<DeadLetterPage> MemoryDeadLetters::list_dead_letters(
    const DeadLetterFilter& filter, std::size_t limit,
    const std::optional<DeadLetterCursor>& after) {
  return core_.gate.run_read([&]() -> absl::StatusOr<DeadLetterPage> {
    limit = std::clamp<std::size_t>(limit, 1, kMaxDeadLetterPage);
    DeadLetterPage page;
    for (DeadLetter& letter : memory_store::all_dead_letters(core_.state)) {
      if (!matches_filter(letter, filter) || (after && !is_after_cursor(letter, *after))) continue;
      if (page.items.size() == limit) {  // one more matches: there is a next page
        const DeadLetter& last = page.items.back();
        page.next = DeadLetterCursor{last.dead_lettered_at, last.id, last.source};
        break;
      }
      page.items.push_back(std::move(letter));
    }
    return page;
  });
}

absl::StatusOr<std::vector<DeadLetterGroup>> MemoryDeadLetters::dead_letter_groups(
    const DeadLetterFilter& filter) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<DeadLetterGroup>> {
    // Oldest first: the letters come in dead_lettered_at order, so a group's first letter is its
    // oldest and groups are made in the order of their first.
    std::vector<DeadLetterGroup> groups;
    std::map<std::string, std::size_t, std::less<>> by_key;
    for (const DeadLetter& letter : memory_store::all_dead_letters(core_.state)) {
      if (!matches_filter(letter, filter)) continue;
      std::string key = dead_letter_group_key(letter);
      const auto [found, added] = by_key.try_emplace(key, groups.size());
      if (added) {
        if (groups.size() >= kMaxDeadLetterGroups) continue;
        DeadLetterGroup group;
        group.key = std::move(key);
        group.source = letter.source;
        group.target = letter.target;
        group.message_type = letter.message_type;
        group.reason = letter.reason;
        group.error_first_line = std::string(error_first_line(letter.error));
        group.first_at = group.last_at = letter.dead_lettered_at;
        groups.push_back(std::move(group));
      }
      if (found->second >= groups.size()) continue;
      DeadLetterGroup& group = groups[found->second];
      ++group.count;
      group.first_at = std::min(group.first_at, letter.dead_lettered_at);
      group.last_at = std::max(group.last_at, letter.dead_lettered_at);
    }
    return groups;
  });
}

absl::StatusOr<std::optional<DeadLetterDetail>> MemoryDeadLetters::find_dead_letter(
    const DeadLetterKey& key) {
  return core_.gate.run_read(
      [&]() -> absl::StatusOr<std::optional<DeadLetterDetail>> { return find(key); });
}

std::optional<DeadLetterDetail> MemoryDeadLetters::find(const DeadLetterKey& key) const {
  const memory_store::State& state = core_.state;
  std::optional<DeadLetterDetail> detail;
  for (DeadLetter& letter : memory_store::all_dead_letters(state)) {
    if (letter.source != key.source || letter.id != key.id) continue;
    detail.emplace();
    detail->letter = std::move(letter);
    break;
  }
  if (!detail) return std::nullopt;
  detail->message_id = key.id;
  const auto event_parts = [&](const MessageId& event_id) {
    detail->message_id = event_id;
    if (auto event = state.events.find(event_id); event != state.events.end()) {
      detail->event_data = event->second.event_data;
      detail->metadata = event->second.metadata;
    }
  };
  switch (key.source) {
    case DeadLetterSource::Outbox:
      detail->envelope_json = state.outbox.at(key.id).message.envelope_json;
      break;
    case DeadLetterSource::Inbox:
      detail->envelope_json = state.inbox.at(key.id).message.envelope_json;
      break;
    case DeadLetterSource::PerspectiveEvent:
      for (const auto& [row_key, row] : state.perspective_events) {
        if (row.event_work_id == key.id) event_parts(row.event_id);
      }
      break;
    case DeadLetterSource::LifecycleCompletion:
      event_parts(key.id);
      break;
    case DeadLetterSource::DetachedWork: {
      const DetachedWork& work = state.detached.at(key.id).work;
      detail->message_id = work.message_id;
      detail->envelope_json = work.envelope_json;
      break;
    }
  }
  // Its message's invocation records, oldest first (as the SQL's ORDER BY).
  for (const auto& [invocation_key, entry] : state.invocations) {
    if (std::get<0>(invocation_key) == detail->message_id) {
      detail->invocations.push_back(entry.second);
    }
  }
  std::sort(detail->invocations.begin(), detail->invocations.end(),
            [](const ReceptorInvocationRecord& a, const ReceptorInvocationRecord& b) {
              if (a.completed_at != b.completed_at) return a.completed_at < b.completed_at;
              return a.receptor_id.view() < b.receptor_id.view();
            });
  return detail;
}

bool MemoryDeadLetters::requeue(const DeadLetterKey& key) {
  memory_store::State& state = core_.state;
  switch (key.source) {
    case DeadLetterSource::Outbox:
      if (auto it = state.outbox.find(key.id);
          it != state.outbox.end() && it->second.state.dead_lettered_at) {
        give_fresh_attempts(it->second.state);
        return true;
      }
      return false;
    case DeadLetterSource::Inbox:
      if (auto it = state.inbox.find(key.id);
          it != state.inbox.end() && it->second.state.dead_lettered_at) {
        give_fresh_attempts(it->second.state);
        return true;
      }
      return false;
    case DeadLetterSource::PerspectiveEvent:
      for (auto& [row_key, row] : state.perspective_events) {
        if (row.event_work_id != key.id || !row.dead_lettered_at) continue;
        give_fresh_attempts(row);
        return true;
      }
      return false;
    case DeadLetterSource::LifecycleCompletion:
      if (auto it = state.lifecycle.find(key.id);
          it != state.lifecycle.end() && it->second.dead_lettered_at) {
        give_fresh_attempts(it->second);
        return true;
      }
      return false;
    case DeadLetterSource::DetachedWork:
      break;
  }
  auto it = state.detached.find(key.id);
  if (it == state.detached.end() || !it->second.dead_lettered_at) return false;
  memory_store::DetachedRow& row = it->second;
  row.work.attempts = 0;
  row.dead_lettered_at.reset();
  row.scheduled_for.reset();
  row.instance_id.reset();
  row.lease_expiry.reset();
  return true;
}

bool MemoryDeadLetters::remove(const DeadLetterKey& key) {
  memory_store::State& state = core_.state;
  const auto erase_dead = [&](auto& table, const auto& dead_lettered_at_of) {
    auto it = table.find(key.id);
    if (it == table.end() || !dead_lettered_at_of(it->second)) return false;
    table.erase(it);
    return true;
  };
  switch (key.source) {
    case DeadLetterSource::Outbox:
      return erase_dead(state.outbox,
                        [](const OutboxRow& row) { return row.state.dead_lettered_at; });
    case DeadLetterSource::Inbox:
      return erase_dead(state.inbox,
                        [](const InboxRow& row) { return row.state.dead_lettered_at; });
    case DeadLetterSource::PerspectiveEvent:
      for (auto it = state.perspective_events.begin(); it != state.perspective_events.end(); ++it) {
        if (it->second.event_work_id != key.id || !it->second.dead_lettered_at) continue;
        state.perspective_events.erase(it);
        return true;
      }
      return false;
    case DeadLetterSource::LifecycleCompletion:
      return erase_dead(state.lifecycle,
                        [](const memory_store::LifecycleRow& row) { return row.dead_lettered_at; });
    case DeadLetterSource::DetachedWork:
      break;
  }
  return erase_dead(state.detached,
                    [](const memory_store::DetachedRow& row) { return row.dead_lettered_at; });
}

absl::StatusOr<std::size_t> MemoryDeadLetters::requeue_dead_letter_keys(
    std::span<const DeadLetterKey> keys) {
  return core_.gate.run([&]() -> absl::StatusOr<std::size_t> {
    std::size_t requeued = 0;
    for (const DeadLetterKey& key : keys) requeued += requeue(key) ? 1 : 0;
    // Requeued rows are due now: wake the workers as a new row would.
    if (requeued > 0) core_.gate.note({.outbox_written = true, .inbox_written = true});
    return requeued;
  });
}

absl::StatusOr<std::size_t> MemoryDeadLetters::discard_dead_letters(
    std::span<const DeadLetterKey> keys, std::string_view reason) {
  return core_.gate.run([&]() -> absl::StatusOr<std::size_t> {
    std::size_t discarded = 0;
    const TimePoint now = core_.now();
    for (const DeadLetterKey& key : keys) {
      std::optional<DeadLetterDetail> detail = find(key);
      if (!detail) continue;
      // A discarded outbox row is never published, however often its id is emitted again: it
      // leaves the tombstone a published row leaves (kept by the id's age, RetentionOptions).
      std::optional<TimePoint> outbox_stored_at;
      if (key.source == DeadLetterSource::Outbox) {
        if (auto row = core_.state.outbox.find(key.id); row != core_.state.outbox.end()) {
          outbox_stored_at = row->second.state.created_at;
        }
      }
      if (!remove(key)) continue;
      if (outbox_stored_at) core_.state.outbox_tombstones.emplace(key.id, *outbox_stored_at);
      std::string envelope =
          detail->envelope_json.empty() ? detail->event_data : detail->envelope_json;
      // Kept once per (source, id), as the SQL's ON CONFLICT DO NOTHING.
      core_.state.discarded.try_emplace(
          std::pair<DeadLetterSource, MessageId>(key.source, key.id),
          DiscardedDeadLetter{std::move(detail->letter), now, std::string(reason)},
          std::move(envelope));
      ++discarded;
    }
    return discarded;
  });
}

absl::StatusOr<std::vector<DiscardedDeadLetter>> MemoryDeadLetters::discarded_dead_letters(
    std::size_t limit) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<DiscardedDeadLetter>> {
    std::vector<DiscardedDeadLetter> out;
    for (const auto& [key, entry] : core_.state.discarded) out.push_back(entry.first);
    // Most recently discarded first, then by id (the SQL's ORDER BY).
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      if (a.discarded_at != b.discarded_at) return a.discarded_at > b.discarded_at;
      return a.letter.id < b.letter.id;
    });
    if (out.size() > limit) out.resize(limit);
    return out;
  });
}

absl::StatusOr<WorkBacklog> MemoryDeadLetters::work_backlog() {
  return core_.gate.run_read([&]() -> absl::StatusOr<WorkBacklog> {
    const memory_store::State& state = core_.state;
    WorkBacklog backlog;
    const auto pending = [](const RowState& row) {
      return !row.processed_at && !row.dead_lettered_at;
    };
    for (const auto& [id, row] : state.outbox) backlog.outbox += pending(row.state) ? 1 : 0;
    for (const auto& [id, row] : state.inbox) backlog.inbox += pending(row.state) ? 1 : 0;
    for (const auto& [key, row] : state.perspective_events) {
      backlog.perspectives += row.dead_lettered_at ? 0 : 1;  // completed rows are erased
    }
    backlog.dead_letters = static_cast<std::int64_t>(memory_store::all_dead_letters(state).size());
    return backlog;
  });
}

}  // namespace whizbang
