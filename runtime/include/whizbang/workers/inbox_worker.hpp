// InboxWorker: the receiving side. Stores what the transport delivers in the inbox (permanent
// dedup) and hands each claimed inbox row to a handler.
//
// The door: every delivered message is checked before it is stored, deduplicated or counted
// (docs/guide/16-security.md, "What a sender on the broker can and cannot do"): a type this
// service knows, written as clean text; a UUIDv7 id equal to its envelope's; a well-formed
// envelope within `envelope_limits`; a signature `signing` accepts. One that fails is refused
// with its reason: to the transport's dead letters (RabbitMQ: `{queue}.dlq`), or, on a transport
// without any, kept once per distinct content as a dead letter in this store; never under the id
// it claims, and never holding up the messages behind it. A batch the store fails to take is
// stored message by message, so one message the store keeps refusing is refused itself after
// `max_store_tries` instead of sending its whole batch back forever; while every batch fails,
// delivery_health() says since when.
//
// A handling runs inside a transaction on the store: whatever the handler writes (its emitted
// outbox rows, its receptor invocation records) and the inbox row's completion commit together,
// so a crash either loses the whole handling (the row is re-offered when its lease lapses, and
// nothing was emitted) or none of it. A handler that fails (or throws: receptors fail by
// throwing) rolls back and the row is retried with backoff, then dead-lettered after
// StoreOptions::max_attempts; a permanent failure (whizbang/retry/failure.hpp) is dead-lettered at
// once; a row whose envelope is corrupt or of an unknown type is quarantined (EventId 111).
//
// Group commit: the handlings of a claimed batch share one transaction (up to `max_group` of them,
// or what `max_group_duration` allows), each in a savepoint of its own, so a batch costs one
// commit and a handling that fails rolls back alone. A crash loses the open group's handlings
// together; their rows are re-offered and handled again, with the same derived ids.
//
// Handling on delivery (`handle_on_delivery`): the thread that delivers a batch stores it, claims
// and handles one group in the same transaction, one commit where storing and the worker's cycle
// take three; the delivery is acknowledged after that commit. On a store that accepts deliveries
// (WorkStore::accept_deliveries(): SQLite) nothing is stored for a handling that succeeds; a row is
// written only for one that fails or must wait. Rows beyond the group are left to the
// worker thread, and so is all of it once stop() was called. Meant for transports that deliver on
// threads of their own (RabbitMQ): with one that delivers inside a publish, the publishing thread
// would run this service's receptors.
//
// Rows of one stream are handled in order: when a row fails, the later rows of its stream in the
// batch are released untouched and wait for its retry. A long batch renews its leases every
// `lease_renewal_interval`; a handling starts only while this instance still holds the row's
// lease (checked inside its transaction, before any receptor runs), so a row another instance
// took over after a lapse is never handled twice.
//
//   whizbang::InboxWorker inbox(store, resolver, [&](whizbang::InboxHandling& h) {
//     return dispatcher.handle_inbox(h.envelope, h.store);   // writes join the transaction
//   }, options);
//   auto subscription = inbox.subscribe(transport);
//   inbox.start();
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/observability/tracer.hpp"
#include "whizbang/security/envelope_signing.hpp"
#include "whizbang/store/retry_policies.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/transport/transport.hpp"
#include "whizbang/workers/circuit_breaker.hpp"
#include "whizbang/workers/worker_loop.hpp"

namespace whizbang {

class LogRateLimiter;

// What a handler gets: the claimed row, its decoded envelope (dispatch_context.handler_name set
// to the row's handler, source Inbox) and the store, with this thread's transaction open.
struct InboxHandling {
  const WorkItem& item;
  Envelope& envelope;
  WorkStore& store;
};

using InboxHandler = std::function<absl::Status(InboxHandling& handling)>;

struct InboxWorkerOptions {
  std::string service_name;
  // Replaces an unknown (all-zero) source service id on received rows.
  Uuid service_id;
  // What subscribe() binds to.
  std::vector<TransportBinding> bindings;
  // A delivered event whose envelope's source service is `service_id` (this service published
  // it) and whose type this answers true for is acknowledged and dropped at the door, never
  // stored, and counted (`…inbox.own_event_dropped`). Null: none is (ServiceHost sets it from
  // HostOptions::own_events).
  std::function<bool(const MessageTypeInfo&)> drop_own_event;
  std::size_t max_batch = 100;
  // Group commit: at most this many rows' handlings per transaction (1: one commit per handling),
  // and no group stays open longer than `max_group_duration` (other writers wait while it is).
  std::size_t max_group = 100;
  std::chrono::milliseconds max_group_duration{50};
  std::chrono::milliseconds poll_interval{1000};
  // How often a batch still being handled renews the leases of its remaining rows. Keep it well
  // below StoreOptions::lease_duration (300 s).
  std::chrono::milliseconds lease_renewal_interval{60'000};
  // The handler name of a received message; default: the type's simple name + "Handler".
  std::function<std::string(const TransportMessage&)> handler_name;
  // Store, claim and handle a delivered batch's first group in one transaction, on the delivering
  // thread (see above). The worker's own cycles go on as they are.
  bool handle_on_delivery = false;
  // What a received envelope may hold; one beyond is refused at the door, never stored.
  EnvelopeLimits envelope_limits;
  // Signature checks on received envelopes (docs/guide/16-security.md). A delivery that fails
  // them is refused at the door like any other (see "The door" above).
  EnvelopeSigning signing;
  // How many times one delivered message may fail to be stored on its own before it is refused
  // as unstorable instead of coming back with its batch forever. Only an error that can be one
  // message's counts: a store that is down, full or corrupt (Unavailable, ResourceExhausted,
  // DataLoss, Aborted) blames no message, and the batch waits for it.
  int max_store_tries = 3;
  // How many times in a row a handling that failed with a transient database error
  // (Unavailable: SQLite busy, a PostgreSQL serialization failure or deadlock, a dropped
  // connection) is handled again without counting an attempt; past it, such a failure counts as
  // any other (docs/guide/17-your-data.md).
  int max_transient_retries = 10;
  // Which retry policy a failed handling gets (docs/guide/11-failures.md, "Retry policies");
  // default: the store's schedule.
  RetryPolicies retry_policies;
  // The receptors' circuit breakers, by the row's handler name (docs/guide/11-failures.md,
  // "Circuit breakers"): while one is open its rows are handed back for later, no attempt
  // counted. Null: none.
  std::shared_ptr<CircuitBreakers> circuit_breakers;
  // Counts refused deliveries (`…inbox.delivery_refused{reason}`), dropped duplicates and
  // batches the store failed to take; null: not counted.
  std::shared_ptr<Metrics> metrics;
  // The services whose hops may set the security scope a handling runs under; nullopt trusts
  // every sender. A scope from any other service is dropped (the message is handled with none).
  std::optional<std::vector<std::string>> scope_trusted_services;
  std::shared_ptr<spdlog::logger> logger;
  // Spans of deliveries and handlings (docs/guide/18-tracing.md); null: tracing off (a handling
  // still makes the envelope's trace context current, so what it writes carries it on). An
  // invalid `tp` is counted on `metrics` either way.
  std::shared_ptr<Tracer> tracer;
  // Their `messaging.system` (Transport::messaging_system()).
  std::string messaging_system = "whizbang";
};

// How the delivering side of an inbox is doing: a subscription whose batches keep failing to be
// stored is stuck (ServiceRunner's /readyz says so).
struct DeliveryHealth {
  // Since when every delivered batch has failed to be stored; unset while they are stored.
  std::optional<std::chrono::steady_clock::time_point> failing_since;
  std::string last_error;
  std::uint64_t failed_batches = 0;      // since the worker was made
  std::uint64_t refused_deliveries = 0;  // likewise
  std::uint64_t duplicates_dropped = 0;  // likewise
  std::uint64_t own_events_dropped = 0;  // likewise (InboxWorkerOptions::drop_own_event)
};

struct InboxCycleResult {
  std::size_t handled = 0;
  std::size_t failed = 0;  // retried later, or dead-lettered
  std::size_t quarantined = 0;
  std::size_t crashed = 0;     // handlings lost to an injected fault (whizbang/testing/)
  std::size_t held_back = 0;   // released: an earlier row of their stream failed in this batch
  std::size_t lease_lost = 0;  // another instance took the row over: this handling rolled back
  std::size_t duplicates = 0;  // delivered messages seen before, dropped
  std::size_t retried = 0;     // failed on a transient database error: again, no attempt counted
  std::size_t deferred = 0;  // their receptor's circuit breaker is open: later, no attempt counted
};

class InboxWorker {
 public:
  InboxWorker(WorkStore& store, MessageTypeResolver resolver, InboxHandler handler,
              InboxWorkerOptions options);
  ~InboxWorker();
  InboxWorker(const InboxWorker&) = delete;
  InboxWorker& operator=(const InboxWorker&) = delete;

  // Subscribes to `transport` with options.bindings; deliveries go to receive(). Refused
  // deliveries go to the transport's dead letters when it keeps any
  // (Transport::dead_letters_refused()), else to this store's.
  absl::StatusOr<std::unique_ptr<TransportSubscription>> subscribe(Transport& transport);
  // Checks each delivered message at the door, stores the admitted ones in the inbox (and handles
  // them, with handle_on_delivery) and wakes the worker thread for what it left. The outcome's
  // status is OK once all of them are stored; its refusals name the messages the transport is to
  // dead-letter (none unless subscribed to a transport that keeps dead letters: the inbox then
  // keeps them in its store).
  DeliveryOutcome receive(std::span<const TransportMessage> batch);
  DeliveryHealth delivery_health() const;

  absl::StatusOr<InboxCycleResult> run_once();
  void start();
  void stop();
  void notify() { loop_.notify(); }
  // The loop start() runs: cycles completed, wait_for_cycles() (readiness checks, tests).
  const WorkerLoop& loop() const { return loop_; }

 private:
  enum class Handling { Handled, NotHandled, Failed, LeaseLost, Crashed, Deferred };
  struct Admission;  // inbox_receiving.cpp
  // The door: the rows the admitted messages of a delivered batch become, and the refusals.
  Admission admit(std::span<const TransportMessage> batch) const;
  // Stores (or handles on delivery) the admitted rows; counts the duplicates.
  absl::Status store_admitted(Admission& admission, bool handle_here);
  // After the batch failed to be stored as a whole: each row on its own, so the good ones are
  // taken and one that keeps failing is refused (max_store_tries).
  absl::Status store_one_by_one(Admission& admission, const absl::Status& batch_failure);
  // Sends the refusals to the transport's dead letters (in the outcome) or keeps them here.
  DeliveryOutcome settle_refusals(std::span<const TransportMessage> batch, Admission& admission);
  // Counts what a delivered batch came to, and keeps delivery_health().
  void note_delivery(const absl::Status& stored, const Admission& admission);
  // Stores the delivered rows, then claims and handles one group, all in one transaction; false
  // when a cycle of the worker thread is under way (the caller then only stores them).
  absl::StatusOr<bool> handle_delivered(std::span<const InboxMessage> rows,
                                        std::size_t& duplicates);
  // One claim and its handlings. `delivered` rows are stored first, inside the first group's
  // transaction; `one_group`: stop once the first group committed, leaving the rest claimed (and
  // waking the worker thread for them).
  absl::StatusOr<InboxCycleResult> cycle(std::span<const InboxMessage> delivered, bool one_group);
  // A delivered batch on a store that accepts deliveries (WorkStore::accept_deliveries()): its
  // messages handled in one transaction, a row written only for a handling that does not
  // succeed, for a message held back, or for what the group cannot take (left to the worker).
  absl::StatusOr<InboxCycleResult> handle_accepted(std::span<const InboxMessage> delivered);
  // Checks, decodes and handles a row this instance holds. `held_by_group`: its lease was renewed
  // inside the open group's transaction, which holds the row until it ends. `unwritten`: the
  // delivered message of an accepted item that has no row yet (written before a failure is).
  absl::StatusOr<Handling> go_through(const WorkItem& item, InboxCycleResult& result,
                                      bool held_by_group, const InboxMessage* unwritten = nullptr);
  absl::StatusOr<Handling> handle_in_savepoint(const WorkItem& item, Envelope& envelope,
                                               InboxCycleResult& result, bool held_by_group,
                                               const InboxMessage* unwritten);
  absl::StatusOr<Handling> handle_then_complete(const WorkItem& item, Envelope& envelope,
                                                InboxCycleResult& result);
  // Renews the row's lease inside the handling's transaction; false when another instance has it.
  absl::StatusOr<bool> lease_held(const WorkItem& item, InboxCycleResult& result);
  // Renews, inside the group's transaction just opened, the leases of the rows from items[index]
  // the group can take (at most max_group): one store call for the group instead of one per
  // handling. Returns the rows held.
  absl::StatusOr<std::set<MessageId>> hold_for_group(std::span<const WorkItem> items,
                                                     std::size_t index);
  absl::StatusOr<Handling> record_failure(const WorkItem& item, const absl::Status& handled,
                                          InboxCycleResult& result,
                                          const InboxMessage* unwritten = nullptr);
  // Hands the row back for `wait` without an attempt (its receptor's circuit breaker is open).
  absl::StatusOr<Handling> defer(const WorkItem& item, std::chrono::microseconds wait,
                                 InboxCycleResult& result, const InboxMessage* unwritten);
  // Whether a handling of `id` that failed on a transient database error may go again without
  // counting an attempt (max_transient_retries in a row).
  bool transient_retry_allowed(const MessageId& id);
  // Writes the row of an accepted item that has none (`unwritten`; nullptr: it has one).
  absl::Status keep_row(const InboxMessage* unwritten);
  // Clears the hops' scopes when the latest one was set by a service not trusted to set it.
  void drop_untrusted_scope(Envelope& envelope, const WorkItem& item) const;

  WorkStore& store_;
  MessageTypeResolver resolver_;
  InboxHandler handler_;
  InboxWorkerOptions options_;
  // Faults Whizbang::testing installed for this service (whizbang/testing/inbox_faults.hpp):
  // false splits each handling's writes and its completion into two commits; before_completion_
  // runs just before the completion commits (non-OK: a crash there).
  bool atomic_completion_ = true;
  std::function<absl::Status(const WorkItem&)> before_completion_;
  int commit_listener_ = 0;
  // One cycle at a time (the worker's, or a delivering thread's): two would claim the same rows,
  // both leased to this instance.
  std::mutex cycle_mutex_;
  // False once stop() was called (until start()): a delivery is then only stored.
  std::atomic<bool> handling_deliveries_{true};
  // Set by subscribe(): the transport keeps what the door refuses.
  std::atomic<bool> refusals_to_transport_{false};
  mutable std::mutex delivery_mutex_;           // guards what follows
  std::map<MessageId, int> store_tries_;        // messages that failed to be stored on their own
  std::map<MessageId, int> transient_retries_;  // handlings failed on transient errors, in a row
  static constexpr std::size_t kMaxTrackedRetries = 4096;
  DeliveryHealth health_;
  // A sender can put any number of bad messages on the broker: their refusals are logged at
  // most once per kind every few seconds, with how many were held back (all are counted).
  std::unique_ptr<LogRateLimiter> refusal_log_;
  WorkerLoop loop_;
};

}  // namespace whizbang
