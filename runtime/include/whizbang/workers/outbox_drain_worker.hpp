// OutboxDrainWorker: moves committed outbox rows to the transport.
//
// Each cycle (run_once): write what the deferred channel holds, resolve the local service id
// while it is still unknown, call process_work_batch (claims fresh rows and rows whose lease
// lapsed), publish the returned rows grouped by destination, and record completions (Published:
// the row is deleted) and failures (backoff, then dead letter) in one transaction. Rows without a
// destination are event-store only: they were appended to the event store by the batch and
// complete as Published without a transport call. A row whose envelope is corrupt or of an
// unknown type is quarantined (EventId 111) and the cycle goes on. Built without a transport (a
// host that publishes to nobody), the worker claims only event-store-only rows: its events are
// stored, and rows for other services wait in the outbox for a host that has one.
//
// Faults: a PreOutbox receptor or the transport may fail or throw; the row fails (retried with
// backoff, dead-lettered at max attempts, at once for a permanent failure) and the later rows of
// its stream in the batch are released to wait for its retry, so a stream is published in order.
// When the transport is not ready the remaining rows are released. Completions that could not be
// recorded (store unavailable) are carried into the next cycle's batch, so a published row is
// not published again at once.
//
// Source service id (docs/guide/09-diagnostics.md, EventIds 50-53): the constructor looks the id up
// once
// ("start-up"). While it is unknown, the worker looks it up again before each batch: on a
// non-empty answer it keeps it, logs EventId 51 at Information and never looks again; each
// failed retry logs EventId 52 at Debug. An empty answer at start-up logs EventId 50 (Warning);
// a throwing lookup at start-up logs one start-up warning (EventId 53) instead, never both.
// Once resolved, every published envelope carries it (an envelope never leaves with a nil "ss").
//
// Steppable for tests (run_once) or run on its own thread (start/stop), woken by the deferred
// channel and by store commits that wrote outbox rows.
//
//   whizbang::OutboxDrainWorker worker(store, transport, resolver, options, &channel);
//   worker.start();   // ... worker.stop();
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/dispatch/deferred_outbox_channel.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/observability/tracer.hpp"
#include "whizbang/security/envelope_signing.hpp"
#include "whizbang/store/retry_policies.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/transport/command_inboxes.hpp"
#include "whizbang/transport/transport.hpp"
#include "whizbang/workers/circuit_breaker.hpp"
#include "whizbang/workers/worker_loop.hpp"

namespace whizbang {

class LeaseKeeper;
namespace outbox_drain {
struct Group;
struct StageFiring;
}  // namespace outbox_drain

struct OutboxDrainWorkerOptions {
  // Where commands go: their namespace's inbox, or upstream's shared inbox topic for the
  // namespaces `command_inboxes` leaves there (whizbang/transport/command_inboxes.hpp).
  std::string shared_inbox_topic = "inbox";
  CommandInboxes command_inboxes;
  std::size_t max_batch = 100;
  // How long the thread sleeps when nothing wakes it.
  std::chrono::milliseconds poll_interval{1000};
  // Keep published rows (processed/published_at set) instead of deleting them.
  bool debug_mode = false;
  // This service's id. May throw or return a nil id while the id is not yet known; unset means
  // "no id to stamp" (envelopes leave without "ss").
  std::function<Uuid()> local_service_id_lookup;
  // Runs the PreOutbox stages (Detached, then Inline) before a row is published and the
  // PostOutbox stages after; typically ReceptorInvoker::invoke. A PreOutbox error fails the row
  // (backoff); records appended by PreOutbox receptors leave with the message. A stage fires in
  // a transaction that first renews the row's lease, and not at all when another instance took
  // the row over (docs/guide/11-failures.md).
  std::function<absl::Status(Envelope& envelope, Stage stage)> lifecycle;
  // Whether `lifecycle` has receptors at `stage` for messages of `type`: a stage without any is
  // run without that transaction. Unset: every stage is taken to have some.
  std::function<bool(const MessageTypeInfo& type, Stage stage)> has_receptors_at;
  // How often a batch still being published renews the leases of its remaining rows.
  std::chrono::milliseconds lease_renewal_interval{60'000};
  // Which retry policy a failed publish gets (docs/guide/11-failures.md, "Retry policies");
  // default: the store's schedule. A broker that is down or settling costs no attempt at all.
  RetryPolicies retry_policies;
  // The destinations' circuit breakers, by transport address (docs/guide/11-failures.md, "Circuit
  // breakers"): while one is open its rows are handed back for later, no attempt counted;
  // half-open, one row is published as the trial. Null: none.
  std::shared_ptr<CircuitBreakers> circuit_breakers;
  // Sign or Require: every published envelope is signed with the ring's first key
  // (docs/guide/16-security.md).
  EnvelopeSigning signing;
  std::shared_ptr<spdlog::logger> logger;
  // A Producer span per published message, under the trace its last hop's `tp` names
  // (docs/guide/18-tracing.md). Null: tracing off.
  std::shared_ptr<Tracer> tracer;
  // Counts each published row (whizbang.work_coordinator.outbox.published{message_type}) once its
  // completion is recorded. Null: not counted.
  std::shared_ptr<Metrics> metrics;
};

struct DrainCycleResult {
  std::size_t deferred_written = 0;
  std::size_t published = 0;
  std::size_t event_store_only = 0;
  std::size_t failed = 0;  // retried later, or dead-lettered
  std::size_t quarantined = 0;
  std::size_t held_back = 0;  // released: an earlier row of their stream failed, or not ready
  // Published, but another instance took the row over while the publish ran (it outlasted the
  // lease): the new owner records it and fires its PostOutbox stages, not this worker.
  std::size_t lease_lost = 0;
  // Their destination's circuit breaker is open: handed back for later, no attempt counted.
  std::size_t deferred = 0;
};

class OutboxDrainWorker {
 public:
  // `channel` may be null (no deferred publishing). The references must outlive the worker.
  OutboxDrainWorker(WorkStore& store, Transport& transport, MessageTypeResolver resolver,
                    OutboxDrainWorkerOptions options = {},
                    DeferredOutboxChannel* channel = nullptr);
  // Without a transport: event-store-only rows (and the deferred channel) only.
  OutboxDrainWorker(WorkStore& store, MessageTypeResolver resolver,
                    OutboxDrainWorkerOptions options = {},
                    DeferredOutboxChannel* channel = nullptr);
  ~OutboxDrainWorker();
  OutboxDrainWorker(const OutboxDrainWorker&) = delete;
  OutboxDrainWorker& operator=(const OutboxDrainWorker&) = delete;

  // One cycle. Errors are the store's (the batch is retried next cycle; drained deferred
  // messages are queued again so none is lost).
  absl::StatusOr<DrainCycleResult> run_once();

  // Runs cycles on a thread until stop(); each cycle waits for a wake-up or the poll interval.
  void start();
  void stop();
  // Wakes the thread for a cycle now.
  void notify() { loop_.notify(); }
  // The loop start() runs: cycles completed, wait_for_cycles() (readiness checks, tests).
  const WorkerLoop& loop() const { return loop_; }

  // Nil while unresolved.
  Uuid source_service_id() const;

 private:
  struct Batch;

  void resolve_at_startup();
  void resolve_before_batch();
  // Decodes the claimed rows, stamps the source service id, runs PreOutbox and groups them.
  void prepare(const std::vector<WorkItem>& items, Batch& batch, DrainCycleResult& result);
  // Publishes the groups in order and runs PostOutbox for what was published.
  absl::Status publish(Batch& batch, DrainCycleResult& result);
  // One started Producer span per message of `group` (none when tracing is off).
  std::vector<Span> publish_spans(const outbox_drain::Group& group) const;
  // Runs `stage` of row `id` through options_.lifecycle, under the row's lease when the stage
  // has receptors (outbox_stage_firing.hpp).
  outbox_drain::StageFiring fire_stage(const MessageId& id, Envelope& envelope, Stage stage);
  // The PostOutbox stages of a published group's rows; a row found taken over is marked lost in
  // `leases` and fires nothing more. Returns the rows whose stages the store could not run.
  std::set<MessageId> fire_post_outbox_stages(outbox_drain::Group& group, LeaseKeeper& leases);
  // A failed row: recorded, and the rest of its stream in this batch waits.
  void fail(Batch& batch, const WorkItem& item, const absl::Status& status, FailureReason reason,
            DrainCycleResult& result);

  // What a cycle records after publishing, in one transaction: the completions and failures.
  struct Record {
    std::vector<WorkCompletion> completions;
    std::vector<WorkFailure> failures;
    std::vector<WorkDeferral> deferrals;
    // The message type of each Published completion, counted once the record committed.
    std::vector<std::string> published_types{};
  };
  // Writes `record` and counts its published rows once it committed.
  absl::Status record(const Record& record);
  absl::Status write_record(const Record& record);
  // Whether `group` may be published now (its destination's circuit breaker); a half-open
  // breaker's trial keeps only the group's first row (`trial` set).
  bool admit(Batch& batch, outbox_drain::Group& group, bool& trial, DrainCycleResult& result);

  WorkStore& store_;
  Transport* transport_;
  MessageTypeResolver resolver_;
  OutboxDrainWorkerOptions options_;
  DeferredOutboxChannel* channel_;
  int commit_listener_ = 0;

  mutable std::mutex id_mutex_;
  Uuid source_service_id_;
  int lookup_attempts_ = 0;

  // What a cycle published but could not record: the next cycle records it before it claims.
  std::optional<Record> unrecorded_;

  WorkerLoop loop_;
};

}  // namespace whizbang
