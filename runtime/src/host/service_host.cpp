#include "whizbang/host/service_host.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "service_host_own_events.hpp"

#include "whizbang/exactly_once/database_receptor_dedup_store.hpp"
#include "whizbang/ids/derived_identity.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/transport/publish_strategy.hpp"

namespace whizbang {
namespace {

// The namespace service ids derive from (a fixed v7-shaped id).
constexpr Uuid::Bytes kServiceNamespace = {0x01, 0x90, 0x00, 0x00, 0x00, 0x00, 0x70, 0x00,
                                           0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown";
  return buffer;
}

}  // namespace

Uuid service_id_for(std::string_view service_name) {
  const std::string type = "whizbang.service:" + std::string(service_name);
  return CompositeChildIdentity::derive(Uuid(kServiceNamespace), 0, type)->uuid();
}

ServiceHost::ServiceHost(const Registry& registry, HostOptions options)
    : registry_(registry), options_(std::move(options)) {}

ServiceHost::~ServiceHost() { stop(); }

absl::StatusOr<std::unique_ptr<ServiceHost>> ServiceHost::create(const Registry& registry,
                                                                 const ServiceRegistry& services,
                                                                 HostOptions options) {
  if (options.store == nullptr) {
    return absl::InvalidArgumentError("ServiceHost needs a store (HostOptions::store)");
  }
  if (options.service_name.empty()) {
    return absl::InvalidArgumentError("ServiceHost needs a service name");
  }
  if (absl::Status signing = options.signing.validate(); !signing.ok()) return signing;
  if (options.service_id.is_nil()) options.service_id = service_id_for(options.service_name);
  if (!options.dedup_store) {
    if (options.guardrails.persist == PersistInvocations::Database) {
      options.dedup_store = std::make_shared<DatabaseReceptorDedupStore>(*options.store);
    } else {
      options.dedup_store = std::make_shared<EnvelopeReceptorDedupStore>();
    }
  }
  std::unique_ptr<ServiceHost> host(new ServiceHost(registry, std::move(options)));
  if (absl::Status status = host->build_dispatcher(services); !status.ok()) return status;
  host->build_invokers();
  if (absl::Status status = host->build_perspectives(services); !status.ok()) return status;
  if (absl::Status status = host->build_rebuilds(services); !status.ok()) return status;
  host->bind_transport();
  host->build_workers();
  return host;
}

absl::Status ServiceHost::build_dispatcher(const ServiceRegistry& services) {
  const HostOptions& o = options_;
  DispatcherOptions dispatcher_options;
  dispatcher_options.self = {o.service_name, MessageId::mint().uuid(), host_name(),
                             static_cast<std::int64_t>(getpid())};
  dispatcher_options.source_service_id = o.service_id;
  dispatcher_options.store = o.store;
  dispatcher_options.unit_of_work = [store = o.store](const std::function<absl::Status()>& work) {
    Transaction transaction(*store);  // joins the handling's transaction when one is open
    if (!transaction.status().ok()) return transaction.status();
    if (absl::Status status = work(); !status.ok()) return status;  // rolls back
    return transaction.commit();
  };
  if (o.transport != nullptr) {
    dispatcher_options.in_transaction = [store = o.store] { return store->in_transaction(); };
    dispatcher_options.defer = [channel = &deferred_](OutboxMessage row) {
      channel->queue(std::move(row));
    };
    dispatcher_options.publish_outside_transaction = o.publish_outside_transaction;
  }
  dispatcher_options.guardrails = o.guardrails;
  dispatcher_options.owned_domains = o.owned_domains;
  dispatcher_options.dedup_store = o.dedup_store;
  dispatcher_options.logger = o.logger;
  // Tracing on when there is a sink (docs/guide/18-tracing.md); shared by every component.
  if (o.span_sink) {
    dispatcher_options.tracer = std::make_shared<Tracer>(o.span_sink, o.trace_sampling_ratio);
  }
  absl::StatusOr<std::unique_ptr<Dispatcher>> dispatcher =
      Dispatcher::create(registry_, services, std::move(dispatcher_options));
  if (!dispatcher.ok()) return dispatcher.status();
  dispatcher_ = *std::move(dispatcher);
  return absl::OkStatus();
}

void ServiceHost::build_invokers() {
  const HostOptions& o = options_;
  ReceptorInvokerOptions invoker_options;
  invoker_options.guardrails = o.guardrails;
  invoker_options.dedup_store = o.dedup_store;
  invoker_options.owned_domains = o.owned_domains;
  invoker_options.executor = o.executor;
  invoker_options.detached_work = o.store;
  invoker_options.logger = o.logger;
  invoker_options.retry_policies = o.retry_policies;  // kept detached work's failed runs
  invoker_ = std::make_unique<ReceptorInvoker>(*dispatcher_, invoker_options);
  // Outside a handling's transaction a record on the envelope alone is lost with a failed publish
  // or a crash: these stages also keep theirs in the database (a replaced store is kept as is).
  if (dynamic_cast<const EnvelopeReceptorDedupStore*>(o.dedup_store.get()) != nullptr) {
    invoker_options.dedup_store = std::make_shared<DatabaseReceptorDedupStore>(*o.store);
  }
  durable_invoker_ = std::make_unique<ReceptorInvoker>(*dispatcher_, invoker_options);
  outbox_lifecycle_ = std::make_unique<Lifecycle>(*durable_invoker_);
}

absl::Status ServiceHost::build_perspectives(const ServiceRegistry& services) {
  if (!registry_.perspectives().empty()) {
    PerspectiveRunnerOptions runner_options;
    runner_options.logger = options_.logger;
    runner_options.metrics = options_.metrics;
    runner_options.tracer = dispatcher_->options().tracer;
    absl::StatusOr<std::unique_ptr<PerspectiveRunner>> runner = PerspectiveRunner::create(
        registry_, services, *options_.store, *durable_invoker_, runner_options);
    if (!runner.ok()) return runner.status();
    perspective_runner_ = *std::move(runner);
    PerspectiveWorkerOptions worker_options;
    worker_options.poll_interval = options_.poll_interval;
    worker_options.max_batch_time = options_.lease_renewal_interval;
    worker_options.logger = options_.logger;
    worker_options.retry_policies = options_.retry_policies;
    perspective_worker_ =
        std::make_unique<PerspectiveWorker>(*options_.store, *perspective_runner_, worker_options);
  }
  PerspectiveRunner* runner = perspective_runner_.get();
  lifecycle_ = std::make_unique<Lifecycle>(*invoker_, [runner](const Envelope& envelope) {
    // The perspective worker then owns PostAllPerspectives and PostLifecycle.
    return runner != nullptr && runner->has_perspectives(envelope);
  });
  return absl::OkStatus();
}

void ServiceHost::bind_transport() {
  // Bind what this service handles: events on their topic, commands on their namespace's inbox
  // or the shared one (command_inboxes.hpp). An event only a perspective projects is handled
  // too: the inbox stores it for the perspective. An event whose receptors here all fire off the
  // inbox path (local, outbox stages), or one of own_events.local_only, is not bound
  // (service_host_own_events.hpp).
  std::set<const MessageTypeInfo*> own_does_nothing;
  for (const MessageEntry& entry : registry_.messages()) {
    if (entry.receptor_count == 0 && entry.perspectives.empty()) continue;
    if (entry.info->kind == MessageKind::Event) {
      const host_internal::EventBinding event =
          host_internal::event_binding(registry_, entry, options_.own_events);
      if (!event.bind) continue;
      if (event.own_does_nothing) own_does_nothing.insert(entry.info);
      bindings_.push_back(
          {default_destination(*entry.info), routing_key_for(entry.info->wire_name)});
      continue;
    }
    for (TransportBinding& binding : command_bindings(
             entry.info->wire_name, options_.command_inboxes, options_.shared_inbox_topic)) {
      const bool known = std::any_of(bindings_.begin(), bindings_.end(), [&](const auto& b) {
        return b.address == binding.address && b.routing_key == binding.routing_key;
      });
      if (!known) bindings_.push_back(std::move(binding));
    }
  }
  if (options_.own_events.drop_on_receipt && !own_does_nothing.empty()) {
    drop_own_event_ = [types = std::move(own_does_nothing)](const MessageTypeInfo& type) {
      return types.contains(&type);
    };
  }
}

void ServiceHost::build_workers() {
  const HostOptions& o = options_;
  MessageTypeResolver resolver = [registry = &registry_](std::string_view name) {
    return registry->find_message(name);
  };
  OutboxDrainWorkerOptions outbox_options;
  outbox_options.shared_inbox_topic = o.shared_inbox_topic;
  outbox_options.command_inboxes = o.command_inboxes;
  outbox_options.poll_interval = o.poll_interval;
  outbox_options.lease_renewal_interval = o.lease_renewal_interval;
  outbox_options.local_service_id_lookup = [id = o.service_id] { return id; };
  outbox_options.lifecycle = [lifecycle = outbox_lifecycle_.get()](Envelope& envelope,
                                                                   Stage stage) {
    return lifecycle->run_stage(envelope, stage);
  };
  outbox_options.has_receptors_at = [dispatcher = dispatcher_.get()](const MessageTypeInfo& type,
                                                                     Stage stage) {
    return !dispatcher->receptors_at(type, stage).empty();
  };
  outbox_options.retry_policies = o.retry_policies;
  const CircuitBreakers::Observers observers{o.metrics, o.logger, o.circuit_breaker_clock};
  if (o.circuit_breakers.any(CircuitBreakerKind::Destination)) {
    destination_breakers_ = std::make_shared<CircuitBreakers>(CircuitBreakerKind::Destination,
                                                              o.circuit_breakers, observers);
  }
  if (o.circuit_breakers.any(CircuitBreakerKind::Receptor)) {
    receptor_breakers_ = std::make_shared<CircuitBreakers>(CircuitBreakerKind::Receptor,
                                                           o.circuit_breakers, observers);
  }
  outbox_options.circuit_breakers = destination_breakers_;
  outbox_options.signing = o.signing;
  outbox_options.logger = o.logger;
  outbox_options.metrics = o.metrics;
  outbox_options.tracer = dispatcher_->options().tracer;
  // Without a transport the worker stores this service's events and publishes nothing.
  outbox_ =
      o.transport != nullptr
          ? std::make_unique<OutboxDrainWorker>(*o.store, *o.transport, resolver, outbox_options,
                                                &deferred_)
          : std::make_unique<OutboxDrainWorker>(*o.store, resolver, outbox_options, &deferred_);
  InboxWorkerOptions inbox_options;
  inbox_options.service_name = o.service_name;
  inbox_options.service_id = o.service_id;
  inbox_options.bindings = bindings_;
  inbox_options.drop_own_event = drop_own_event_;
  inbox_options.poll_interval = o.poll_interval;
  inbox_options.lease_renewal_interval = o.lease_renewal_interval;
  inbox_options.max_group = o.inbox_max_group;
  inbox_options.retry_policies = o.retry_policies;
  inbox_options.circuit_breakers = receptor_breakers_;
  inbox_options.max_group_duration = o.inbox_max_group_duration;
  inbox_options.handle_on_delivery = o.inbox_handle_on_delivery.value_or(
      o.transport != nullptr && o.transport->delivers_on_own_threads() &&
      o.store->writers_take_turns());
  inbox_options.envelope_limits = o.envelope_limits;
  inbox_options.signing = o.signing;
  inbox_options.scope_trusted_services = o.scope_trusted_services;
  inbox_options.logger = o.logger;
  inbox_options.metrics = o.metrics;
  inbox_options.tracer = dispatcher_->options().tracer;
  if (o.transport != nullptr) inbox_options.messaging_system = o.transport->messaging_system();
  inbox_ = std::make_unique<InboxWorker>(
      *o.store, resolver,
      [lifecycle = lifecycle_.get()](InboxHandling& handling) {
        return lifecycle->process_inbox(handling.envelope);
      },
      inbox_options);
  detached_ = std::make_unique<DetachedWorker>(
      *o.store, *invoker_, DetachedWorkerOptions{100, o.poll_interval, o.logger});
  if (o.purge_interval.count() > 0) {
    retention_ = std::make_unique<RetentionWorker>(
        *o.store, RetentionWorkerOptions{o.retention, o.purge_interval, o.logger});
  }
}

absl::StatusOr<HostCycle> ServiceHost::run_once() {
  HostCycle cycle;
  absl::StatusOr<DrainCycleResult> outbox = outbox_->run_once();
  if (!outbox.ok()) return outbox.status();
  cycle.outbox = *outbox;
  absl::StatusOr<InboxCycleResult> inbox = inbox_->run_once();
  if (!inbox.ok()) return inbox.status();
  cycle.inbox = *inbox;
  if (perspective_worker_) {
    absl::StatusOr<PerspectiveCycleResult> perspectives = perspective_worker_->run_once();
    if (!perspectives.ok()) return perspectives.status();
    cycle.perspectives = *perspectives;
  }
  if (rebuild_worker_) {
    if (auto rebuilt = rebuild_worker_->run_once(); !rebuilt.ok()) return rebuilt.status();
  }
  absl::StatusOr<DetachedCycleResult> detached = detached_->run_once();
  if (!detached.ok()) return detached.status();
  cycle.detached = *detached;
  return cycle;
}

absl::Status ServiceHost::subscribe() {
  // Nothing bound (a service that only publishes): no queue, no consumer.
  if (options_.transport == nullptr || subscription_ || bindings_.empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<TransportSubscription>> subscription =
      inbox_->subscribe(*options_.transport);
  if (!subscription.ok()) return subscription.status();
  subscription_ = *std::move(subscription);
  return absl::OkStatus();
}

absl::Status ServiceHost::start() {
  if (absl::Status status = subscribe(); !status.ok()) return status;
  outbox_->start();
  inbox_->start();
  if (perspective_worker_) perspective_worker_->start();
  if (rebuild_worker_) rebuild_worker_->start();
  detached_->start();
  if (retention_) retention_->start();
  return absl::OkStatus();
}

std::optional<ServiceHost::FailingWorker> ServiceHost::failing_worker() const {
  std::optional<FailingWorker> longest;
  const auto consider = [&](std::string_view name, const WorkerLoop& loop) {
    std::optional<WorkerLoop::Failing> failing = loop.failing();
    if (failing && (!longest || failing->since < longest->failing.since)) {
      longest = FailingWorker{std::string(name), *std::move(failing)};
    }
  };
  consider("outbox", outbox_->loop());
  consider("inbox", inbox_->loop());
  if (perspective_worker_) consider("perspective", perspective_worker_->loop());
  consider("detached work", detached_->loop());
  return longest;
}

std::vector<CircuitBreakerSnapshot> ServiceHost::circuit_breakers() const {
  std::vector<CircuitBreakerSnapshot> breakers;
  for (const auto& kind : {receptor_breakers_, destination_breakers_}) {
    if (!kind) continue;
    std::vector<CircuitBreakerSnapshot> each = kind->snapshot();
    breakers.insert(breakers.end(), std::make_move_iterator(each.begin()),
                    std::make_move_iterator(each.end()));
  }
  return breakers;
}

bool ServiceHost::wait_until_ready(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::max(
        deadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration{}));
  };
  if (!outbox_->loop().wait_for_cycles(1, left())) return false;
  if (!inbox_->loop().wait_for_cycles(1, left())) return false;
  if (perspective_worker_ && !perspective_worker_->loop().wait_for_cycles(1, left())) return false;
  return detached_->loop().wait_for_cycles(1, left());
}

void ServiceHost::stop() {
  // Every worker first, so nothing schedules detached work any more; then the detached work;
  // then the deferred rows that work (and the workers' last cycles) queued, which no drain cycle
  // will take up now.
  if (inbox_) inbox_->stop();
  if (perspective_worker_) perspective_worker_->stop();
  if (rebuild_worker_) rebuild_worker_->stop();
  if (outbox_) outbox_->stop();
  if (detached_) detached_->stop();
  if (retention_) retention_->stop();
  if (options_.executor != nullptr) options_.executor->drain();
  if (std::vector<OutboxMessage> pending = deferred_.drain_all(); !pending.empty()) {
    absl::StatusOr<std::vector<StoredOutboxRow>> stored =
        options_.store->store_outbox_messages(pending);
    if (!stored.ok()) {
      log(options_.logger, spdlog::level::err, log_events::kOutboxRowDropped,
          "stop: {} deferred outbox rows could not be written: {}", pending.size(),
          stored.status().ToString());
    }
  }
}

}  // namespace whizbang
