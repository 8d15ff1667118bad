// MemoryCore: what every memory role shares (state, transaction gate, options) and the rules they
// share:
// leases owned by instance, stream-ordered claims, the retry schedule and the dead-letter rule,
// exactly as the SQLite backend's SQL states them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "store_support.hpp"
#include "transaction_gate.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

namespace memory_store {

// One wh_lifecycle_completions row.
struct LifecycleRow {
  Uuid stream_id;
  std::optional<Uuid> instance_id;
  std::optional<TimePoint> lease_expiry;
  int attempts = 0;
  std::string error;
  FailureReason failure_reason = FailureReason::Unknown;
  std::optional<TimePoint> scheduled_for;
  std::optional<TimePoint> dead_lettered_at;
  TimePoint created_at{};
};

// One wh_detached_work row.
struct DetachedRow {
  DetachedWork work;
  std::optional<Uuid> instance_id;
  std::optional<TimePoint> lease_expiry;
  std::string error;
  FailureReason failure_reason = FailureReason::Unknown;
  std::optional<TimePoint> scheduled_for;
  std::optional<TimePoint> dead_lettered_at;
};

struct State {
  std::map<MessageId, OutboxRow> outbox;
  // Ids of published (deleted) outbox rows, with their publication time: a re-emission of one is
  // still a duplicate.
  std::map<MessageId, TimePoint> outbox_tombstones;
  std::map<MessageId, InboxRow> inbox;
  std::map<MessageId, TimePoint> message_deduplication;
  std::map<MessageId, TimePoint> dispatch_keys;  // keyed dispatches (remember_dispatch)
  std::map<MessageId, StoredEvent> events;
  // stream -> version -> event id
  std::map<Uuid, std::map<std::int64_t, MessageId>> streams;
  // Keyed (stream, perspective, the event's version): a stream's events in the order appended.
  std::map<std::tuple<Uuid, std::string, std::int64_t>, PerspectiveEventRow> perspective_events;
  std::multimap<std::string, std::string> perspective_associations;
  std::map<std::pair<std::string, Uuid>, PerspectiveModelRow> perspective_models;
  std::map<std::pair<std::string, Uuid>, PerspectiveCursor> perspective_cursors;
  std::map<std::tuple<MessageId, std::string, std::string, std::string>,
           std::pair<std::int64_t, ReceptorInvocationRecord>>
      invocations;
  std::int64_t invocation_sequence = 0;
  std::map<Uuid, std::pair<ServiceInstance, TimePoint>> instances;
  std::map<MessageId, LifecycleRow> lifecycle;
  std::map<MessageId, DetachedRow> detached;
  // Perspective rebuilds (perspective_rebuild_store.hpp): requests and leases, the shadow's
  // stream versions, the versions that built the models.
  std::map<std::string, PerspectiveRebuildRow, std::less<>> rebuilds;
  std::map<std::pair<std::string, Uuid>, std::int64_t> rebuild_streams;
  std::map<std::string, PerspectiveVersionRow, std::less<>> perspective_versions;
  // wh_discarded_dead_letters, keyed (source, id): each with the envelope it carried.
  std::map<std::pair<DeadLetterSource, MessageId>, std::pair<DiscardedDeadLetter, std::string>>
      discarded;
};

// Every dead letter of `state`, oldest first (dead_lettered_at, id, source): the rows the SQL
// backends' dead_letter_rows() view holds.
std::vector<DeadLetter> all_dead_letters(const State& state);

// What a failure does to the lease and retry columns every failing table shares.
struct FailureColumns {
  int& attempts;
  std::string& error;
  FailureReason& failure_reason;
  std::optional<Uuid>& instance_id;
  std::optional<TimePoint>& lease_expiry;
  std::optional<TimePoint>& scheduled_for;
  std::optional<TimePoint>& dead_lettered_at;
};

}  // namespace memory_store

struct MemoryCore : store_internal::TransactionBackend {
  explicit MemoryCore(StoreOptions store_options)
      : options(store_internal::normalize(std::move(store_options))),
        gate(*this, options.metrics) {}

  absl::Status backend_begin(bool explicit_transaction) override {
    // Single calls validate before they mutate, so only explicit transactions need a snapshot.
    if (explicit_transaction) snapshot = state;
    return absl::OkStatus();
  }
  absl::Status backend_commit() override {
    snapshot.reset();
    savepoints.clear();
    return absl::OkStatus();
  }
  void backend_rollback() override {
    if (snapshot) state = std::move(*snapshot);
    snapshot.reset();
    savepoints.clear();
  }
  absl::Status backend_savepoint(int) override {
    savepoints.push_back(state);
    return absl::OkStatus();
  }
  absl::Status backend_release(int) override {
    savepoints.pop_back();
    return absl::OkStatus();
  }
  absl::Status backend_rollback_to(int) override {
    state = std::move(savepoints.back());
    savepoints.pop_back();
    return absl::OkStatus();
  }

  TimePoint now() const { return options.now(); }
  const Uuid& self() const { return options.instance.instance_id; }

  // Leased to this instance or to nobody: completions and failures may touch it.
  bool owned(const std::optional<Uuid>& instance_id) const {
    return !instance_id || *instance_id == self();
  }
  // Unleased, leased to this instance, or its lease lapsed.
  bool free(const std::optional<Uuid>& instance_id, const std::optional<TimePoint>& lease_expiry,
            TimePoint at) const {
    return !instance_id || *instance_id == self() || !lease_expiry || *lease_expiry < at;
  }
  // A live row that holds its stream back from this instance: scheduled for later (a retry), or
  // leased to another instance whose lease is live.
  bool waits_elsewhere(const std::optional<Uuid>& instance_id,
                       const std::optional<TimePoint>& lease_expiry,
                       const std::optional<TimePoint>& scheduled_for, TimePoint at) const {
    if (scheduled_for && *scheduled_for > at) return true;
    return !free(instance_id, lease_expiry, at);
  }

  std::vector<StoredOutboxRow> store_outbox(std::span<const OutboxMessage> messages);
  std::vector<MessageId> store_inbox(std::span<const InboxMessage> messages,
                                     const Uuid& receiving_service_id);
  void complete(std::span<const WorkCompletion> completions, std::span<const WorkFailure> failures,
                bool debug_mode);
  // Applies a failure to `row`'s columns and reports it (counters, dead-letter warning).
  void fail(memory_store::FailureColumns row, std::string_view table, const MessageId& id,
            const std::string& message_type, const std::optional<Uuid>& stream_id,
            std::string_view error, FailureReason reason, bool dead_letter,
            const std::optional<RetryDecision>& retry = std::nullopt);
  std::vector<WorkItem> process(const WorkBatchRequest& request);
  std::vector<MessageId> renew(std::span<const WorkLease> leases);
  // Appends an event row to the event store; a row whose envelope cannot be read is quarantined
  // (returns false) instead.
  bool append_event(const MessageId& id, const std::string& message_type, const Uuid& stream_id,
                    const std::string& envelope_json, RowState& row, std::string_view table);
  RowState* find_state(WorkSource source, const MessageId& id);
  void report_new(std::span<const OutboxMessage> messages, const std::set<MessageId>& created);

  StoreOptions options;
  store_internal::TransactionGate gate;
  memory_store::State state;
  std::optional<memory_store::State> snapshot;
  std::vector<memory_store::State> savepoints;  // a copy of the state at each open savepoint
};

}  // namespace whizbang
