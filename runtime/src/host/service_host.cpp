#include "whizbang/service_host.hpp"

#include <unistd.h>

#include "whizbang/database_receptor_dedup_store.hpp"
#include "whizbang/derived_identity.hpp"
#include "whizbang/logging.hpp"
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
  if (options.service_id.is_nil()) options.service_id = service_id_for(options.service_name);
  if (!options.dedup_store) {
    if (options.guardrails.persist == PersistInvocations::Database) {
      options.dedup_store = std::make_shared<DatabaseReceptorDedupStore>(*options.store);
    } else {
      options.dedup_store = std::make_shared<EnvelopeReceptorDedupStore>();
    }
  }
  std::unique_ptr<ServiceHost> host(new ServiceHost(registry, std::move(options)));
  const HostOptions& o = host->options_;

  DispatcherOptions dispatcher_options;
  dispatcher_options.self = {o.service_name, MessageId::mint().uuid(), host_name(),
                             static_cast<std::int64_t>(getpid())};
  dispatcher_options.store = o.store;
  dispatcher_options.unit_of_work = [store = o.store](const std::function<absl::Status()>& work) {
    Transaction transaction(*store);  // joins the handling's transaction when one is open
    if (!transaction.status().ok()) return transaction.status();
    if (absl::Status status = work(); !status.ok()) return status;  // rolls back
    return transaction.commit();
  };
  if (o.transport != nullptr) {
    dispatcher_options.in_transaction = [store = o.store] { return store->in_transaction(); };
    dispatcher_options.defer = [channel = &host->deferred_](OutboxMessage row) {
      channel->queue(std::move(row));
    };
    dispatcher_options.publish_outside_transaction = o.publish_outside_transaction;
  }
  dispatcher_options.guardrails = o.guardrails;
  dispatcher_options.owned_domains = o.owned_domains;
  dispatcher_options.dedup_store = o.dedup_store;
  dispatcher_options.logger = o.logger;
  absl::StatusOr<std::unique_ptr<Dispatcher>> dispatcher =
      Dispatcher::create(registry, services, std::move(dispatcher_options));
  if (!dispatcher.ok()) return dispatcher.status();
  host->dispatcher_ = *std::move(dispatcher);

  ReceptorInvokerOptions invoker_options;
  invoker_options.guardrails = o.guardrails;
  invoker_options.dedup_store = o.dedup_store;
  invoker_options.owned_domains = o.owned_domains;
  invoker_options.executor = o.executor;
  invoker_options.logger = o.logger;
  host->invoker_ = std::make_unique<ReceptorInvoker>(*host->dispatcher_, invoker_options);
  if (!registry.perspectives().empty()) {
    PerspectiveRunnerOptions runner_options;
    runner_options.logger = o.logger;
    absl::StatusOr<std::unique_ptr<PerspectiveRunner>> runner =
        PerspectiveRunner::create(registry, services, *o.store, *host->invoker_, runner_options);
    if (!runner.ok()) return runner.status();
    host->perspective_runner_ = *std::move(runner);
    PerspectiveWorkerOptions worker_options;
    worker_options.poll_interval = o.poll_interval;
    worker_options.logger = o.logger;
    host->perspective_worker_ =
        std::make_unique<PerspectiveWorker>(*o.store, *host->perspective_runner_, worker_options);
  }
  PerspectiveRunner* runner = host->perspective_runner_.get();
  host->lifecycle_ =
      std::make_unique<Lifecycle>(*host->invoker_, [runner](const Envelope& envelope) {
        // The perspective worker then owns PostAllPerspectives and PostLifecycle.
        return runner != nullptr && runner->has_perspectives(envelope);
      });

  // Bind what this service handles: events on their topic, commands on the shared inbox. An
  // event only a perspective projects is handled too: the inbox stores it for the perspective.
  for (const MessageEntry& entry : registry.messages()) {
    if (entry.receptor_count == 0 && entry.perspectives.empty()) continue;
    const std::string key = routing_key_for(entry.info->wire_name);
    host->bindings_.push_back(entry.info->kind == MessageKind::Event
                                  ? TransportBinding{default_destination(*entry.info), key}
                                  : TransportBinding{o.shared_inbox_topic, key});
  }

  MessageTypeResolver resolver = [&registry](std::string_view name) {
    return registry.find_message(name);
  };
  Lifecycle* lifecycle = host->lifecycle_.get();
  if (o.transport != nullptr) {
    OutboxDrainWorkerOptions outbox_options;
    outbox_options.shared_inbox_topic = o.shared_inbox_topic;
    outbox_options.poll_interval = o.poll_interval;
    outbox_options.local_service_id_lookup = [id = o.service_id] { return id; };
    outbox_options.lifecycle = [lifecycle](Envelope& envelope, Stage stage) {
      return lifecycle->run_stage(envelope, stage);
    };
    outbox_options.logger = o.logger;
    host->outbox_ = std::make_unique<OutboxDrainWorker>(*o.store, *o.transport, resolver,
                                                        outbox_options, &host->deferred_);
  }
  InboxWorkerOptions inbox_options;
  inbox_options.service_name = o.service_name;
  inbox_options.service_id = o.service_id;
  inbox_options.bindings = host->bindings_;
  inbox_options.poll_interval = o.poll_interval;
  inbox_options.atomic_completion = o.atomic_inbox_completion;
  inbox_options.before_completion = o.before_inbox_completion;
  inbox_options.logger = o.logger;
  host->inbox_ = std::make_unique<InboxWorker>(
      *o.store, resolver,
      [lifecycle](InboxHandling& handling) { return lifecycle->process_inbox(handling.envelope); },
      inbox_options);
  return host;
}

absl::StatusOr<HostCycle> ServiceHost::run_once() {
  HostCycle cycle;
  if (outbox_) {
    absl::StatusOr<DrainCycleResult> outbox = outbox_->run_once();
    if (!outbox.ok()) return outbox.status();
    cycle.outbox = *outbox;
  }
  absl::StatusOr<InboxCycleResult> inbox = inbox_->run_once();
  if (!inbox.ok()) return inbox.status();
  cycle.inbox = *inbox;
  if (perspective_worker_) {
    absl::StatusOr<PerspectiveCycleResult> perspectives = perspective_worker_->run_once();
    if (!perspectives.ok()) return perspectives.status();
    cycle.perspectives = *perspectives;
  }
  return cycle;
}

absl::Status ServiceHost::subscribe() {
  if (options_.transport == nullptr || subscription_) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<TransportSubscription>> subscription =
      inbox_->subscribe(*options_.transport);
  if (!subscription.ok()) return subscription.status();
  subscription_ = *std::move(subscription);
  return absl::OkStatus();
}

absl::Status ServiceHost::start() {
  if (absl::Status status = subscribe(); !status.ok()) return status;
  if (outbox_) outbox_->start();
  inbox_->start();
  if (perspective_worker_) perspective_worker_->start();
  return absl::OkStatus();
}

void ServiceHost::stop() {
  // Producers first: what they publish on the way out still reaches the outbox.
  if (inbox_) inbox_->stop();
  if (perspective_worker_) perspective_worker_->stop();
  if (options_.executor != nullptr) options_.executor->drain();
  if (outbox_) outbox_->stop();
  // Deferred rows no drain cycle picked up are written now, not lost with the process.
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
