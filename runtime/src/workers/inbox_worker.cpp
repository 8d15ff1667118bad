#include "whizbang/workers/inbox_worker.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "fmt/format.h"
#include "group_commit.hpp"
#include "inbox_admission.hpp"
#include "inbox_faults.hpp"
#include "lease_keeper.hpp"
#include "whizbang/message/envelope_parse_memo.hpp"
#include "whizbang/message/wire_routing.hpp"
#include "whizbang/observability/log_rate_limiter.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {
namespace {

// The worker whose cycle this thread is running, if any: that cycle handles what it stores, so its
// commit need not wake the worker thread, and a delivery to the same worker from inside it only
// stores (the cycle's lock is this thread's already).
thread_local const InboxWorker* cycle_on_this_thread = nullptr;

// Marks a cycle for its duration; restores the mark of a cycle it runs inside (another worker's,
// when a transport delivers inside a publish made on this thread).
class CycleOnThisThread {
 public:
  explicit CycleOnThisThread(const InboxWorker* worker)
      : outer_(std::exchange(cycle_on_this_thread, worker)) {}
  ~CycleOnThisThread() { cycle_on_this_thread = outer_; }
  CycleOnThisThread(const CycleOnThisThread&) = delete;
  CycleOnThisThread& operator=(const CycleOnThisThread&) = delete;

 private:
  const InboxWorker* outer_;
};

std::string default_handler_name(const TransportMessage& message) {
  return std::string(wire_simple_name(message.message_type)) + "Handler";
}

}  // namespace

InboxWorker::InboxWorker(WorkStore& store, MessageTypeResolver resolver, InboxHandler handler,
                         InboxWorkerOptions options)
    : store_(store),
      resolver_(std::move(resolver)),
      handler_(std::move(handler)),
      options_(std::move(options)),
      refusal_log_(std::make_unique<LogRateLimiter>()) {
  if (!options_.handler_name) options_.handler_name = default_handler_name;
  if (auto faults = workers_internal::inbox_faults_of(options_.service_name); faults != nullptr) {
    atomic_completion_ = !faults->split_completion;
    before_completion_ = faults->before_completion;
  }
  commit_listener_ = store_.add_commit_listener([this](const CommitInfo& info) {
    if (info.inbox_written && cycle_on_this_thread != this) loop_.notify();
  });
}

InboxWorker::~InboxWorker() {
  stop();
  store_.remove_commit_listener(commit_listener_);
}

DeliveryOutcome InboxWorker::receive(std::span<const TransportMessage> batch) {
  const bool handle_here = options_.handle_on_delivery && atomic_completion_ &&
                           handling_deliveries_ && cycle_on_this_thread != this;
  // Handled here, the door's read of each envelope and the handling share one parse; only
  // stored, nothing here reads them again, and keeping them would be work for nothing.
  std::optional<EnvelopeParseMemo> memo;
  if (handle_here) memo.emplace();
  Admission admission = admit(batch);
  absl::Status stored = store_admitted(admission, handle_here);
  if (!stored.ok() && !store_wide(stored)) {
    // May be one message the store will not take: the others must not wait behind it. A
    // store-wide failure (down, full) is no message's fault: everything comes again.
    stored = store_one_by_one(admission, stored);
  }
  DeliveryOutcome outcome = stored.ok() ? settle_refusals(batch, admission) : stored;
  note_delivery(outcome.status, admission);
  // The transport's settle spans go under the receive spans (read before those end).
  if (!admission.spans.empty()) {
    outcome.tracer = options_.tracer.get();
    outcome.settle_parents.resize(batch.size());
    for (std::size_t row = 0; row < admission.spans.size(); ++row) {
      if (const TraceContext* context = admission.spans[row].context()) {
        outcome.settle_parents[admission.row_of[row]] = *context;
      }
    }
  }
  finish_receive_spans(admission.spans, admission.rows, admission.newly_stored,
                       admission.duplicates, outcome.status);
  return outcome;
}

absl::StatusOr<bool> InboxWorker::handle_delivered(std::span<const InboxMessage> rows,
                                                   std::size_t& duplicates) {
  // Never waits for the worker thread's cycle: its receptors may run long, and a delivering
  // thread (a broker connection's) must get back to its connection soon.
  std::unique_lock lock(cycle_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || !handling_deliveries_) return false;  // again: stop() may have come
  const CycleOnThisThread marker(this);
  absl::StatusOr<InboxCycleResult> result =
      store_.accepts_deliveries() ? handle_accepted(rows) : cycle(rows, /*one_group=*/true);
  if (!result.ok()) return result.status();
  duplicates = result->duplicates;
  if (result->crashed > 0) {
    // Nothing of the batch was stored: as a crash before the acknowledgement, it comes again.
    return absl::UnavailableError("a handling of the delivered batch crashed (fault injection)");
  }
  return true;
}

absl::StatusOr<InboxCycleResult> InboxWorker::handle_accepted(
    std::span<const InboxMessage> delivered) {
  InboxCycleResult result;
  GroupCommit group(store_, options_.max_group, options_.max_group_duration, options_.metrics);
  if (absl::Status status = group.join(); !status.ok()) return status;
  // In message-id order, the order a claim offers rows in (a redelivery may come late).
  std::vector<InboxMessage> sorted;
  const auto by_id = [](const InboxMessage& a, const InboxMessage& b) {
    return a.message_id < b.message_id;
  };
  if (!std::is_sorted(delivered.begin(), delivered.end(), by_id)) {
    sorted.assign(delivered.begin(), delivered.end());
    std::stable_sort(sorted.begin(), sorted.end(), by_id);
    delivered = sorted;
  }
  absl::StatusOr<AcceptedDeliveries> accepted =
      store_.accept_deliveries(delivered, options_.service_id);
  if (!accepted.ok()) return accepted.status();
  result.duplicates = accepted->duplicates;
  if (accepted->stored > 0) loop_.notify();  // rows behind others of their stream: claimed later
  const std::vector<WorkItem>& ready = accepted->ready;
  // The delivered message of each ready item (the ready ones keep the delivered order).
  std::vector<const InboxMessage*> message_of;
  message_of.reserve(ready.size());
  for (std::size_t at = 0; const WorkItem& item : ready) {
    while (at < delivered.size() && delivered[at].message_id != item.message_id) ++at;
    if (at == delivered.size()) return absl::InternalError("an accepted message was not delivered");
    message_of.push_back(&delivered[at]);
  }
  std::set<Uuid> failed_streams;
  std::vector<WorkCompletion> released;
  for (std::size_t index = 0; index < ready.size(); ++index) {
    const WorkItem& item = ready[index];
    if (index > 0 && group.due()) {
      // What the group cannot take waits for the worker thread, as rows leased to this instance.
      std::vector<InboxMessage> rest;
      for (std::size_t i = index; i < ready.size(); ++i) rest.push_back(*message_of[i]);
      if (absl::Status status = store_.keep_accepted(rest, options_.service_id); !status.ok()) {
        return status;
      }
      loop_.notify();
      break;
    }
    if (item.stream_id && failed_streams.contains(*item.stream_id)) {
      // Stream order: kept, and released at once, behind the earlier one's retry.
      if (absl::Status status = keep_row(message_of[index]); !status.ok()) return status;
      released.push_back({WorkSource::Inbox, item.message_id, MessageStatus::None});
      ++result.held_back;
      continue;
    }
    absl::StatusOr<Handling> handling =
        go_through(item, result, /*held_by_group=*/true, message_of[index]);
    if (!handling.ok()) return handling.status();
    if (*handling == Handling::Crashed) {
      result.crashed += 1 + group.abandon();
      return result;
    }
    if (*handling != Handling::Handled && item.stream_id) failed_streams.insert(*item.stream_id);
    group.count(*handling == Handling::Handled, item.message_type);
  }
  if (!released.empty()) {
    if (absl::Status status = store_.complete_work(released, {}); !status.ok()) return status;
  }
  if (absl::Status status = group.commit(); !status.ok()) return status;
  result.handled += group.committed_handlings();
  return result;
}

absl::StatusOr<InboxCycleResult> InboxWorker::run_once() {
  std::lock_guard lock(cycle_mutex_);
  const EnvelopeParseMemo memo;  // an event row's claim and its handling: one parse
  const CycleOnThisThread marker(this);
  return cycle({}, /*one_group=*/false);
}

absl::StatusOr<InboxCycleResult> InboxWorker::cycle(std::span<const InboxMessage> delivered,
                                                    bool one_group) {
  InboxCycleResult result;
  // Atomic completion: the rows' handlings (and what else their rows need written) share group
  // transactions. Otherwise each handling commits on its own, twice (see the options).
  const bool grouped = atomic_completion_;
  GroupCommit group(store_, options_.max_group, options_.max_group_duration, options_.metrics);
  if (!delivered.empty()) {
    if (absl::Status status = group.join(); !status.ok()) return status;
    absl::StatusOr<std::vector<MessageId>> stored =
        store_.store_inbox_messages(delivered, options_.service_id);
    if (!stored.ok()) return stored.status();
    result.duplicates = delivered.size() - stored->size();
  }
  WorkBatchRequest request;
  request.claim_outbox = false;
  request.max_items = options_.max_batch;
  request.receiving_service_id = options_.service_id;
  absl::StatusOr<std::vector<WorkItem>> items = store_.process_work_batch(request);
  if (!items.ok()) return items.status();

  LeaseKeeper leases(store_, options_.lease_renewal_interval);
  std::set<MessageId> held_by_group;  // rows whose leases the open group renewed
  if (group.is_open()) {
    // Claimed inside the open group's transaction: the claim's leases hold every row until it ends.
    for (const WorkItem& item : *items) held_by_group.insert(item.message_id);
  }
  std::set<Uuid> failed_streams;
  std::vector<WorkCompletion> released;
  for (std::size_t index = 0; index < items->size(); ++index) {
    const WorkItem& item = (*items)[index];
    if (item.stream_id && failed_streams.contains(*item.stream_id)) {
      // Stream order: this row waits for the retry of the earlier row that failed.
      released.push_back({WorkSource::Inbox, item.message_id, MessageStatus::None});
      ++result.held_back;
      continue;
    }
    // Before the row's group opens: a renewal that finds the row taken over needs no group.
    absl::StatusOr<bool> held = leases.still_held(*items, index);
    if (!held.ok()) return held.status();
    if (!*held) {  // another instance has it (and so the stream's turn)
      ++result.lease_lost;
      if (item.stream_id) failed_streams.insert(*item.stream_id);
      continue;
    }
    if (grouped && !group.is_open()) {
      if (absl::Status status = group.join(); !status.ok()) return status;
      absl::StatusOr<std::set<MessageId>> held_rows = hold_for_group(*items, index);
      if (!held_rows.ok()) return held_rows.status();
      held_by_group = *std::move(held_rows);
    }
    absl::StatusOr<Handling> handling =
        go_through(item, result, grouped && held_by_group.contains(item.message_id));
    if (!handling.ok()) return handling.status();
    if (*handling == Handling::Crashed) {
      // As a crash at that point: nothing of the open group commits, nothing more is done.
      result.crashed += 1 + group.abandon();
      break;
    }
    if (*handling != Handling::Handled && item.stream_id) failed_streams.insert(*item.stream_id);
    if (*handling == Handling::Handled && !grouped) {
      ++result.handled;
      // Committed on its own, unless a delivered batch's group holds it (it commits with that).
      if (group.is_open()) {
        group.count_with_group(item.message_type);
      } else {
        count_handled(options_.metrics, item.message_type);
      }
    }
    if (grouped) {
      if (absl::Status status = group.row_done(*handling == Handling::Handled, item.message_type);
          !status.ok()) {
        return status;
      }
      if (one_group && !group.is_open()) {
        // The rest stay claimed by this instance: the worker's next claim takes them.
        if (index + 1 < items->size()) loop_.notify();
        break;
      }
    }
  }
  if (!released.empty() && result.crashed == 0) {
    if (absl::Status status = store_.complete_work(released, {}); !status.ok()) return status;
  }
  if (absl::Status status = group.commit(); !status.ok()) return status;
  result.handled += group.committed_handlings();
  // A full claim that moved something: more is likely waiting (worker_loop.hpp).
  if (items->size() >= options_.max_batch &&
      result.handled + result.failed + result.quarantined + result.deferred > 0) {
    loop_.notify();
  }
  return result;
}

void InboxWorker::start() {
  handling_deliveries_ = true;
  loop_.start([this] { return run_once().status(); }, "inbox", options_.poll_interval,
              options_.logger);
}

void InboxWorker::stop() {
  // Deliveries from now on are only stored; one being handled finishes first (one group), so no
  // receptor of this worker runs once stop() returned.
  handling_deliveries_ = false;
  if (cycle_on_this_thread != this) std::lock_guard wait_for_cycle(cycle_mutex_);
  loop_.stop();
}

}  // namespace whizbang
