// MemoryOperations: the operations role (dead letters, requeue, retention purge) on memory.
#include "memory/memory_operations.hpp"

#include <algorithm>

#include "memory/memory_core.hpp"

namespace whizbang {

namespace {

// A fresh set of attempts, due now; the last error stays for the record.
template <class Row>
void requeue(Row& row) {
  row.dead_lettered_at.reset();
  row.attempts = 0;
  row.scheduled_for.reset();
  row.instance_id.reset();
  row.lease_expiry.reset();
}

}  // namespace

absl::StatusOr<std::vector<DeadLetter>> MemoryOperations::dead_letters(std::size_t limit) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<DeadLetter>> {
    std::vector<DeadLetter> letters = memory_store::all_dead_letters(core_.state);
    if (letters.size() > limit) letters.resize(limit);
    return letters;
  });
}

absl::StatusOr<std::size_t> MemoryOperations::requeue_dead_letters(std::span<const MessageId> ids) {
  return core_.gate.run([&]() -> absl::StatusOr<std::size_t> {
    memory_store::State& state = core_.state;
    auto wanted = [&](const MessageId& id) {
      return ids.empty() || std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    std::size_t requeued = 0;
    for (auto& [id, row] : state.outbox) {
      if (row.state.dead_lettered_at && wanted(id)) requeue(row.state), ++requeued;
    }
    for (auto& [id, row] : state.inbox) {
      if (row.state.dead_lettered_at && wanted(id)) requeue(row.state), ++requeued;
    }
    for (auto& [key, row] : state.perspective_events) {
      if (row.dead_lettered_at && wanted(row.event_work_id)) requeue(row), ++requeued;
    }
    for (auto& [event_id, row] : state.lifecycle) {
      if (row.dead_lettered_at && wanted(event_id)) requeue(row), ++requeued;
    }
    for (auto& [work_id, row] : state.detached) {
      if (!row.dead_lettered_at || !wanted(work_id)) continue;
      row.work.attempts = 0;
      row.dead_lettered_at.reset();
      row.scheduled_for.reset();
      row.instance_id.reset();
      row.lease_expiry.reset();
      ++requeued;
    }
    if (requeued > 0) core_.gate.note({.outbox_written = true, .inbox_written = true});
    return requeued;
  });
}

absl::StatusOr<PurgeCounts> MemoryOperations::purge(const RetentionOptions& retention) {
  absl::StatusOr<PurgeCounts> counts = core_.gate.run([&]() -> absl::StatusOr<PurgeCounts> {
    memory_store::State& state = core_.state;
    const TimePoint now = core_.now();
    PurgeCounts purged;
    purged.inbox_deduplication = static_cast<std::int64_t>(std::erase_if(
        state.message_deduplication,
        [&](const auto& entry) { return entry.second < now - retention.inbox_deduplication; }));
    purged.outbox_tombstones =
        static_cast<std::int64_t>(std::erase_if(state.outbox_tombstones, [&](const auto& entry) {
          return entry.second < now - retention.outbox_tombstones;
        }));
    purged.receptor_invocations =
        static_cast<std::int64_t>(std::erase_if(state.invocations, [&](const auto& entry) {
          return entry.second.second.completed_at < now - retention.receptor_invocations;
        }));
    purged.service_instances =
        static_cast<std::int64_t>(std::erase_if(state.instances, [&](const auto& entry) {
          return entry.first != core_.self() &&
                 entry.second.second < now - retention.service_instances;
        }));
    purged.dispatch_keys =
        static_cast<std::int64_t>(std::erase_if(state.dispatch_keys, [&](const auto& entry) {
          return entry.second < now - retention.dispatch_keys;
        }));
    purged.refused_deliveries =
        static_cast<std::int64_t>(std::erase_if(state.inbox, [&](const auto& entry) {
          const InboxRow& row = entry.second;
          return row.message.handler_name == kRefusedDeliveryHandler &&
                 row.state.dead_lettered_at &&
                 *row.state.dead_lettered_at < now - retention.refused_deliveries;
        }));
    purged.transactions = 1;  // in memory, one pass: nothing waits on a disk
    return purged;
  });
  if (counts.ok()) store_internal::report_purged(core_.options, *counts);
  return counts;
}

}  // namespace whizbang
