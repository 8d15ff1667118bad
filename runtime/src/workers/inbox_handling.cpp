// How the inbox worker goes through one claimed row: admit and decode its envelope, handle it
// (in the group's savepoint, or then complete it alone), and record what failed.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "group_commit.hpp"
#include "inbox_admission.hpp"
#include "lease_keeper.hpp"
#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/observability/row_quarantine.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace whizbang {

namespace {
// The span of the handling on this thread (go_through), for record_failure to mark. Handlings
// on delivery threads and the worker's own each have theirs.
thread_local Span* t_handling_span = nullptr;
}  // namespace

absl::StatusOr<InboxWorker::Handling> InboxWorker::go_through(const WorkItem& item,
                                                              InboxCycleResult& result,
                                                              bool held_by_group,
                                                              const InboxMessage* unwritten) {
  if (absl::Status admitted = admit_envelope(item.envelope_json, options_.signing);
      !admitted.ok()) {
    log(options_.logger, spdlog::level::warn, log_events::kEnvelopeRefused,
        "inbox row {} ({}) dead-lettered, never handled: {}", item.message_id, item.message_type,
        admitted.message());
    const WorkFailure failure{WorkSource::Inbox,
                              item.message_id,
                              MessageStatus::None,
                              std::string(admitted.message()),
                              FailureReason::ValidationError,
                              /*dead_letter=*/true};
    if (absl::Status status = keep_row(unwritten); !status.ok()) return status;
    if (absl::Status status = store_.complete_work({}, {&failure, 1}); !status.ok()) return status;
    ++result.quarantined;
    return Handling::NotHandled;
  }
  absl::StatusOr<Envelope> envelope = deserialize_envelope(
      item.envelope_json, [&](std::string_view name) { return resolver_(name); }, item.message_type,
      options_.envelope_limits);
  if (envelope.ok() && envelope->message_id != item.message_id) {
    // The row's id (the transport's message id: what deduplicates it) must be the envelope's,
    // or one message could pass the inbox's deduplication under another's id.
    envelope = absl::InvalidArgumentError(fmt::format("envelope {} was delivered as message {}",
                                                      envelope->message_id.to_string(),
                                                      item.message_id.to_string()));
  }
  if (!envelope.ok()) {
    const std::string reason(envelope.status().message());
    log_quarantined_row(options_.logger, "wh_inbox", item.message_id, reason);
    const WorkFailure failure{WorkSource::Inbox,
                              item.message_id,
                              MessageStatus::None,
                              reason,
                              FailureReason::SerializationError,
                              /*dead_letter=*/true};
    if (absl::Status status = keep_row(unwritten); !status.ok()) return status;
    if (absl::Status status = store_.complete_work({}, {&failure, 1}); !status.ok()) return status;
    ++result.quarantined;
    return Handling::NotHandled;
  }
  envelope->dispatch_context.handler_name = item.handler_name;
  envelope->dispatch_context.source = MessageSource::Inbox;
  drop_untrusted_scope(*envelope, item);
  // The receptor's circuit breaker: open, the row waits for the cool-down's end untouched.
  CircuitBreakers* const breakers = options_.circuit_breakers.get();
  bool trial = false;
  if (breakers != nullptr) {
    const CircuitBreakers::Admission admission = breakers->admit(item.handler_name);
    if (!admission.attempt) return defer(item, admission.defer, result, unwritten);
    trial = admission.trial;
  }
  // The handling continues the envelope's trace: its span's context (tracing on) or the incoming
  // one (off) is current while receptors run, so what they emit carries it in `tp`.
  const IncomingTrace incoming = read_incoming_trace(*envelope, options_.metrics.get());
  Span span = start_handling_span(options_.tracer.get(), *envelope, incoming, item.handler_name,
                                  item.attempts, options_.messaging_system);
  TraceScope trace(span.context() != nullptr ? span.context()
                   : incoming.context        ? &*incoming.context
                                             : nullptr);
  Span* const outer_span = std::exchange(t_handling_span, &span);
  absl::StatusOr<Handling> handled =
      atomic_completion_ ? handle_in_savepoint(item, *envelope, result, held_by_group, unwritten)
                         : handle_then_complete(item, *envelope, result);
  t_handling_span = outer_span;
  if (!handled.ok()) mark_failed(span, handled.status());
  if (breakers != nullptr) {
    // A retryable failure was counted by record_failure; anything else ends a trial unjudged.
    if (handled.ok() && *handled == Handling::Handled) {
      breakers->succeeded(item.handler_name);
    } else if (trial) {
      breakers->abandoned(item.handler_name);
    }
  }
  return handled;
}

absl::StatusOr<InboxWorker::Handling> InboxWorker::defer(const WorkItem& item,
                                                         std::chrono::microseconds wait,
                                                         InboxCycleResult& result,
                                                         const InboxMessage* unwritten) {
  if (absl::Status status = keep_row(unwritten); !status.ok()) return status;
  const WorkDeferral deferral{WorkSource::Inbox, item.message_id, wait};
  if (absl::Status status = store_.defer_work({&deferral, 1}); !status.ok()) return status;
  ++result.deferred;
  return Handling::Deferred;
}

void InboxWorker::drop_untrusted_scope(Envelope& envelope, const WorkItem& item) const {
  if (!options_.scope_trusted_services) return;
  const std::vector<std::string>& trusted = *options_.scope_trusted_services;
  // The scope is the fold of every Current hop's change: each hop that changed it set part of it.
  for (const MessageHop& hop : envelope.hops) {
    if (hop.type != HopType::Current || !hop.scope) continue;
    const std::string& setter = hop.service_instance.service_name;
    if (std::find(trusted.begin(), trusted.end(), setter) != trusted.end()) continue;
    log(options_.logger, spdlog::level::warn, log_events::kUntrustedScopeDropped,
        "inbox row {} ({}): its security scope was set by service '{}', which this service does "
        "not trust to set one; handled with no scope",
        item.message_id, item.message_type, setter);
    for (MessageHop& each : envelope.hops) each.scope.reset();
    return;
  }
}

// Runs the handling inside the group's transaction, in a savepoint of its own: a handling that
// fails rolls back alone and its failure is recorded in the group.
absl::StatusOr<InboxWorker::Handling> InboxWorker::handle_in_savepoint(
    const WorkItem& item, Envelope& envelope, InboxCycleResult& result, bool held_by_group,
    const InboxMessage* unwritten) {
  Savepoint savepoint(store_);
  if (!savepoint.status().ok()) return savepoint.status();
  // A lease the group renewed in this transaction is this instance's until the group ends.
  if (!held_by_group) {
    absl::StatusOr<bool> held = lease_held(item, result);
    if (!held.ok() || !*held) {
      if (absl::Status status = savepoint.rollback(); !status.ok()) return status;
      if (!held.ok()) return held.status();
      return Handling::LeaseLost;
    }
  }
  InboxHandling handling{item, envelope, store_};
  // Receptors fail by throwing; whatever the handler lets through becomes this row's failure.
  absl::Status handled = status_of_call("inbox handler", [&] { return handler_(handling); });
  if (handled.ok() && unwritten == nullptr) {  // an unwritten row has nothing to complete
    const WorkCompletion completion{WorkSource::Inbox, item.message_id, MessageStatus::EventStored};
    handled = store_.complete_work({&completion, 1}, {});
  }
  if (handled.ok()) {
    // Aborted when a store call inside failed though the handler went on: rolled back then.
    handled = savepoint.release();
    if (!handled.ok() && !absl::IsAborted(handled)) return handled;
  } else if (absl::Status status = savepoint.rollback(); !status.ok()) {
    return status;
  }
  if (!handled.ok()) return record_failure(item, handled, result, unwritten);
  if (before_completion_) {
    if (absl::Status crash = before_completion_(item); !crash.ok()) {
      return Handling::Crashed;
    }
  }
  return Handling::Handled;
}

// The reference's shape (split by whizbang/testing/inbox_faults.hpp): the handler's writes commit
// on their own, the completion in a second transaction after them.
absl::StatusOr<InboxWorker::Handling> InboxWorker::handle_then_complete(const WorkItem& item,
                                                                        Envelope& envelope,
                                                                        InboxCycleResult& result) {
  {
    Transaction transaction(store_);
    if (!transaction.status().ok()) return transaction.status();
    absl::StatusOr<bool> held = lease_held(item, result);
    if (!held.ok()) return held.status();
    if (!*held) return Handling::LeaseLost;  // rolled back
    InboxHandling handling{item, envelope, store_};
    absl::Status handled = status_of_call("inbox handler", [&] { return handler_(handling); });
    if (!handled.ok()) {
      (void)transaction.rollback();
      return record_failure(item, handled, result);
    }
    if (absl::Status status = transaction.commit(); !status.ok()) return status;
  }
  if (before_completion_) {
    if (absl::Status crash = before_completion_(item); !crash.ok()) {
      return Handling::Crashed;
    }
  }
  const WorkCompletion completion{WorkSource::Inbox, item.message_id, MessageStatus::EventStored};
  if (absl::Status status = store_.complete_work({&completion, 1}, {}); !status.ok()) {
    return status;
  }
  return Handling::Handled;
}

// Inside the handling's transaction, before any receptor runs: a row another instance took over
// after this one's lease lapsed is theirs, and its receptors must not fire here as well. The
// renewal holds the row (the store's write lock, or a row lock) until the transaction ends.
absl::StatusOr<bool> InboxWorker::lease_held(const WorkItem& item, InboxCycleResult& result) {
  const WorkLease lease{WorkSource::Inbox, item.message_id};
  absl::StatusOr<std::vector<MessageId>> held = store_.renew_leases({&lease, 1});
  if (!held.ok()) return held.status();
  if (!held->empty()) return true;
  log(options_.logger, spdlog::level::warn, log_events::kLeaseLost,
      "inbox row {} ({}) was taken over by another instance after this one's lease lapsed; "
      "not handled here",
      item.message_id, item.message_type);
  ++result.lease_lost;
  return false;
}

absl::StatusOr<std::set<MessageId>> InboxWorker::hold_for_group(std::span<const WorkItem> items,
                                                                std::size_t index) {
  const std::size_t group_rows = std::max<std::size_t>(options_.max_group, 1);
  std::vector<WorkLease> leases;
  for (std::size_t i = index; i < items.size() && leases.size() < group_rows; ++i) {
    leases.push_back({WorkSource::Inbox, items[i].message_id});
  }
  absl::StatusOr<std::vector<MessageId>> held = store_.renew_leases(leases);
  if (!held.ok()) return held.status();
  return std::set<MessageId>(held->begin(), held->end());
}

absl::StatusOr<InboxWorker::Handling> InboxWorker::record_failure(const WorkItem& item,
                                                                  const absl::Status& handled,
                                                                  InboxCycleResult& result,
                                                                  const InboxMessage* unwritten) {
  if (t_handling_span != nullptr) mark_failed(*t_handling_span, handled);
  if (absl::IsUnavailable(handled) && transient_retry_allowed(item.message_id)) {
    // The database's passing state (SQLite busy past its timeout, a PostgreSQL serialization
    // failure or deadlock, a dropped connection), not the message's fault: released for another
    // try at once, no attempt counted (docs/guide/17-your-data.md).
    log(options_.logger, spdlog::level::debug, log_events::kInboxHandlingRetried,
        "inbox row {} ({}) met a transient database error; handled again, no attempt counted: {}",
        item.message_id, item.message_type, handled.message());
    ++result.retried;
    if (absl::Status status = keep_row(unwritten); !status.ok()) return status;
    const WorkCompletion release{WorkSource::Inbox, item.message_id, MessageStatus::None};
    if (absl::Status status = store_.complete_work({&release, 1}, {}); !status.ok()) {
      return status;
    }
    loop_.notify();
    return Handling::Failed;
  }
  WorkFailure failure{WorkSource::Inbox,      item.message_id,
                      MessageStatus::None,    std::string(handled.message()),
                      FailureReason::Unknown, is_permanent(handled)};
  options_.retry_policies.apply(handled, item.attempts, failure);
  // Only what a retry could fix counts toward opening the receptor's breaker.
  if (options_.circuit_breakers && !failure.dead_letter) {
    options_.circuit_breakers->failed(item.handler_name);
  }
  ++result.failed;
  if (absl::Status status = keep_row(unwritten); !status.ok()) return status;
  if (absl::Status status = store_.complete_work({}, {&failure, 1}); !status.ok()) return status;
  return Handling::Failed;
}

bool InboxWorker::transient_retry_allowed(const MessageId& id) {
  std::lock_guard lock(delivery_mutex_);
  if (transient_retries_.size() >= kMaxTrackedRetries) transient_retries_.clear();
  int& retries = transient_retries_[id];
  if (retries < options_.max_transient_retries) {
    ++retries;
    return true;
  }
  transient_retries_.erase(id);  // counted from here; a later run of them starts over
  return false;
}

absl::Status InboxWorker::keep_row(const InboxMessage* unwritten) {
  if (unwritten == nullptr) return absl::OkStatus();
  return store_.keep_accepted({unwritten, 1}, options_.service_id);
}

}  // namespace whizbang
