// ServiceHost: one service, assembled — dispatcher, lifecycle invoker, outbox drain worker and
// inbox worker over a store and a transport.
//
//   whizbang::ServiceRegistry services;
//   services.add<shop::Mailer>(mailer);
//   whizbang::HostOptions options;
//   options.service_name = "orders";
//   options.store = store.get();          // e.g. SqliteWorkStore::open("orders.db", ...)
//   options.transport = &transport;       // InProcessTransport or RabbitMqTransport
//   auto host = whizbang::ServiceHost::create(whizbang::generated::orders::registry(), services,
//                                             std::move(options));
//   (*host)->start();                                   // or run_once() from a test
//   (*host)->dispatcher().send(shop::CreateOrder{...});
//
// Events this service stores (its own, and those it receives) are applied to the registry's
// perspectives by a perspective worker, which also fires PostAllPerspectives and PostLifecycle
// for them once every perspective completed.
//
// Exactly-once: every receptor the host runs is guarded by its dedup store. Replace the store by
// setting HostOptions::dedup_store before create(); by default it is the envelope store, or the
// database store when guardrails.persist is Database. The stages that run outside a handling's
// transaction — PreOutbox and PostOutbox on the drain worker, PostAllPerspectives and
// PostLifecycle after the perspectives — also keep their records in wh_receptor_invocations
// whatever the persist mode, so a retry after a failed publish or a crash does not fire them
// again.
//
// Faults (docs/guide/11-failures.md): receptors fail by throwing; no exception leaves a worker, the
// executor or a public call. Failed rows are retried with backoff and dead-lettered after
// StoreOptions::max_attempts. stop() stops the workers, then waits for detached work, then writes
// what the deferred channel still holds: when it returns, nothing of the host runs.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/dispatch/deferred_outbox_channel.hpp"
#include "whizbang/dispatch/dispatcher.hpp"
#include "whizbang/lifecycle/executor.hpp"
#include "whizbang/lifecycle/lifecycle.hpp"
#include "whizbang/lifecycle/receptor_invoker.hpp"
#include "whizbang/observability/span_data.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/transport/command_inboxes.hpp"
#include "whizbang/transport/transport.hpp"
#include "whizbang/workers/circuit_breaker.hpp"
#include "whizbang/workers/detached_worker.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"
#include "whizbang/workers/perspective_rebuild_worker.hpp"
#include "whizbang/workers/perspective_rebuilder.hpp"
#include "whizbang/workers/perspective_runner.hpp"
#include "whizbang/workers/perspective_worker.hpp"
#include "whizbang/workers/retention_worker.hpp"

namespace whizbang {

// The events a service publishes and also handles: the broker delivers them back to it, since it
// binds their type, and cannot tell them from another service's events of the same type
// (docs/guide/13-rabbitmq.md, "Own events").
struct OwnEvents {
  // A delivered event this service published itself (its envelope's source service is this
  // service's id) is acknowledged and dropped before it is stored, and counted
  // (whizbang.work_coordinator.inbox.own_event_dropped): its receptors ran when it was
  // published, and the inbox stages would skip it (EventId 10). Kept when a receptor here fires
  // for its type at a stage that runs for this service's own messages too (PreInbox,
  // PostLifecycle, ...) or a perspective here applies it. false (the default): stored, then
  // skipped by the inbox stages, as before. Off by default while tools and harnesses that count
  // a service's received ids (its inbox deduplication) expect its own events among them.
  bool drop_on_receipt = false;
  // Event types only this service publishes (wire names; a trailing '*' matches any suffix):
  // not bound, so the broker never delivers them here and carries them once. Assumes no other
  // service publishes them: one that does is not heard here.
  std::vector<std::string> local_only;
};

struct HostOptions {
  std::string service_name;
  // This service's id (stamped on published envelopes). Nil: derived from the service name.
  Uuid service_id;
  WorkStore* store = nullptr;  // required
  // Null: nothing is published or received. The host still stores its own events (event-store
  // routes); rows for other services wait in the outbox for a host that has a transport.
  Transport* transport = nullptr;
  GuardrailOptions guardrails;
  std::shared_ptr<ReceptorDedupStore> dedup_store;  // null: chosen from guardrails.persist
  std::vector<std::string> owned_domains;
  // Detached stages run here; null: the host runs them inline. What is scheduled here is kept in
  // the store until it ran (wh_detached_work): the host's detached worker runs what a process
  // that died left behind.
  Executor* executor = nullptr;
  // Commands travel on their namespace's inbox ("inbox.<namespace>"), which this host declares
  // and listens on for the commands it handles; `command_inboxes` leaves namespaces on the
  // shared inbox `shared_inbox_topic` (docs/guide/13-rabbitmq.md, "Command inboxes").
  std::string shared_inbox_topic = "inbox";
  CommandInboxes command_inboxes;
  // What comes back of this service's own events (above).
  OwnEvents own_events;
  // A publish made outside any store transaction (application code, a detached receptor):
  // Defer queues its rows on the host's deferred outbox channel (process memory) for the drain
  // worker's next cycle, which the queueing wakes; WriteThrough commits them before publish()
  // returns. Defer is the faster one, and what a crash between publish() and that cycle costs:
  // the queued rows (the local receptors already ran). Choose WriteThrough where a published
  // message must survive a crash the moment publish() returns. Without a transport, publishes
  // always write through. stop() writes whatever is still queued.
  PublishOutsideTransaction publish_outside_transaction = PublishOutsideTransaction::Defer;
  std::chrono::milliseconds poll_interval{1000};
  // How often the inbox and drain workers renew the leases of a batch they are still working
  // through, and how long the perspective worker applies one claim's batch before claiming the
  // rest again (keep it well below StoreOptions::lease_duration).
  std::chrono::milliseconds lease_renewal_interval{60'000};
  // What the host's retention worker purges, and how often (0: never; call WorkStore::purge).
  RetentionOptions retention;
  std::chrono::milliseconds purge_interval = std::chrono::hours(1);
  // Group commit of inbox handlings (InboxWorkerOptions): handlings per transaction (1: one
  // commit each) and how long a group may hold the store's write lock.
  std::size_t inbox_max_group = 100;
  std::chrono::milliseconds inbox_max_group_duration{50};
  // Handle a delivered batch on the delivering thread, in the transaction that stores it
  // (InboxWorkerOptions::handle_on_delivery). Unset: when the transport delivers on its own
  // threads and the store's writers take turns (RabbitMQ with SQLite).
  std::optional<bool> inbox_handle_on_delivery;
  // Which retry policy a failed handling, publish, perspective apply, PostAllPerspectives or
  // PostLifecycle stage, or detached run gets: by exception type, status code or failure reason
  // (docs/guide/11-failures.md, "Retry policies"); default: the store's schedule.
  RetryPolicies retry_policies;
  // Circuit breakers per receptor (the inbox row's handler name) and per destination (the
  // transport address) and a default (docs/guide/11-failures.md, "Circuit breakers"); nothing
  // configured: none. `circuit_breaker_clock`: their clock (unset: the system clock; tests).
  CircuitBreakerRules circuit_breakers;
  std::function<TimePoint()> circuit_breaker_clock;
  // What a received envelope may hold (size, hops, records); one beyond is dead-lettered.
  EnvelopeLimits envelope_limits;
  // Signs what this service publishes and checks what it receives (docs/guide/16-security.md):
  // Off (the transport is the trust boundary), Sign or Require.
  EnvelopeSigning signing;
  // The services whose hops may set the scope a handling runs under; nullopt trusts all.
  std::optional<std::vector<std::string>> scope_trusted_services;
  std::shared_ptr<spdlog::logger> logger;
  // What the host's workers count beside the store (refused deliveries, dropped duplicates);
  // ServiceRunner passes the metrics /metrics exposes. Null: not counted.
  std::shared_ptr<Metrics> metrics;
  // A perspective whose stored models were built by another version of its code
  // ([[whizbang::version(N)]]): create() refuses (the error names the CLI command) unless a
  // rebuild of it was requested, which it then runs; or rebuilds it blue-green first
  // (docs/perspectives.md, "Rebuild").
  PerspectiveVersionPolicy perspective_version_policy = PerspectiveVersionPolicy::Refuse;
  // Batch size and lease of the rebuilds this host runs (requested ones, version rebuilds).
  RebuildOptions perspective_rebuild;
  // Where this host's spans go (docs/guide/18-tracing.md): an OTLP exporter, or a recording sink
  // in tests. Null (the default): nothing is traced; hops' `tp` is still carried through.
  std::shared_ptr<SpanSink> span_sink;
  // The share of new traces recorded (0..1); a trace continued from a hop keeps its sampled flag.
  double trace_sampling_ratio = 1.0;
};

struct HostCycle {
  DrainCycleResult outbox;
  InboxCycleResult inbox;
  PerspectiveCycleResult perspectives;
  DetachedCycleResult detached;
};

class ServiceHost {
 public:
  static absl::StatusOr<std::unique_ptr<ServiceHost>> create(const Registry& registry,
                                                             const ServiceRegistry& services,
                                                             HostOptions options);
  ~ServiceHost();
  ServiceHost(const ServiceHost&) = delete;
  ServiceHost& operator=(const ServiceHost&) = delete;

  Dispatcher& dispatcher() { return *dispatcher_; }
  ReceptorInvoker& invoker() { return *invoker_; }
  // The invoker of the stages that run outside a handling's transaction (outbox stages, the
  // perspective gate): its records are also kept in wh_receptor_invocations.
  ReceptorInvoker& durable_invoker() { return *durable_invoker_; }
  Lifecycle& lifecycle() { return *lifecycle_; }
  WorkStore& store() { return *options_.store; }
  const HostOptions& options() const { return options_; }
  const std::vector<TransportBinding>& bindings() const { return bindings_; }
  // How the inbox's subscription is doing (a stuck one: every batch failing to be stored).
  DeliveryHealth delivery_health() const { return inbox_->delivery_health(); }
  // The worker whose cycles have all been failing the longest (a store that is down fails every
  // worker's), if any: its name ("inbox", "outbox", …) and since when. After start().
  struct FailingWorker {
    std::string worker;
    WorkerLoop::Failing failing;
  };
  std::optional<FailingWorker> failing_worker() const;
  // Every circuit breaker that has seen work: the receptors', then the destinations'
  // (docs/guide/11-failures.md, "Circuit breakers"). Empty when none is configured.
  std::vector<CircuitBreakerSnapshot> circuit_breakers() const;

  // The perspective runner; null when the registry declares no perspectives.
  PerspectiveRunner* perspectives() { return perspective_runner_.get(); }
  // Rebuilds this service's perspectives from the event store; null without perspectives. The
  // host's rebuild worker serves the requests `whizbang perspective rebuild` records.
  PerspectiveRebuilder* rebuilder() { return rebuilder_.get(); }
  PerspectiveRebuildWorker* rebuild_worker() { return rebuild_worker_.get(); }

  // One outbox cycle, one inbox cycle, one perspective cycle, then one cycle of detached work left
  // by a process that died (deterministic tests, demos).
  absl::StatusOr<HostCycle> run_once();
  // Binds this service's inbox to the transport without starting any worker (start() does it
  // too; calling it again does nothing). A transport hands a message only to the subscriptions
  // bound when it is published, so in a process hosting several services, subscribe every one
  // before starting any: otherwise the first to start can drain rows to services not yet
  // listening. Tests and demos that step run_once() subscribe and never start. A host that binds
  // nothing (no receptor or perspective for what others send) opens no subscription.
  absl::Status subscribe();
  // Subscribes to the transport and starts the workers on their threads.
  absl::Status start();
  // After start(): waits until every worker has completed its first cycle (a first batch of what
  // was stored before start() has been taken up; a readiness probe). False when `timeout` passed
  // first.
  bool wait_until_ready(std::chrono::milliseconds timeout) const;
  // Stops the workers (joins their threads), then waits for detached work on the executor, then
  // writes what the deferred channel still holds. When it returns, nothing of the host runs.
  void stop();

 private:
  ServiceHost(const Registry& registry, HostOptions options);

  absl::Status build_dispatcher(const ServiceRegistry& services);
  void build_invokers();
  absl::Status build_perspectives(const ServiceRegistry& services);
  // service_host_rebuilds.cpp: the rebuilder, its worker, and the version check.
  absl::Status build_rebuilds(const ServiceRegistry& services);
  void bind_transport();
  void build_workers();

  const Registry& registry_;
  HostOptions options_;
  std::vector<TransportBinding> bindings_;
  // The event types whose own deliveries the inbox drops (own_events.drop_on_receipt); null: none.
  std::function<bool(const MessageTypeInfo&)> drop_own_event_;
  DeferredOutboxChannel deferred_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<ReceptorInvoker> invoker_;
  std::unique_ptr<ReceptorInvoker> durable_invoker_;
  std::unique_ptr<Lifecycle> lifecycle_;
  std::unique_ptr<Lifecycle> outbox_lifecycle_;
  std::unique_ptr<OutboxDrainWorker> outbox_;
  std::unique_ptr<InboxWorker> inbox_;
  std::unique_ptr<PerspectiveRunner> perspective_runner_;
  std::unique_ptr<PerspectiveWorker> perspective_worker_;
  std::unique_ptr<PerspectiveRebuilder> rebuilder_;
  std::unique_ptr<PerspectiveRebuildWorker> rebuild_worker_;
  std::unique_ptr<RetentionWorker> retention_;
  std::unique_ptr<DetachedWorker> detached_;
  std::unique_ptr<TransportSubscription> subscription_;
  std::shared_ptr<CircuitBreakers> receptor_breakers_;     // null: none configured
  std::shared_ptr<CircuitBreakers> destination_breakers_;  // likewise
};

// A stable id for a service name (UUIDv7-shaped, derived like a composite child of the nil id's
// namespace), so a service keeps its id across restarts without configuration.
Uuid service_id_for(std::string_view service_name);

}  // namespace whizbang
