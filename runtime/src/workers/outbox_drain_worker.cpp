#include "whizbang/workers/outbox_drain_worker.hpp"

#include <exception>
#include <utility>
#include <vector>

#include "store/store_support.hpp"
#include "whizbang/transport/publish_strategy.hpp"

namespace whizbang {
namespace {

struct Group {
  TransportDestination destination;
  std::optional<Uuid> stream_id;
  std::vector<TransportMessage> messages;
  std::vector<Envelope> envelopes;  // parallel to messages, for the PostOutbox stages
};

// The lookup's answer, or the reason it has none.
struct Lookup {
  Uuid id;
  std::string error;
};

Lookup run_lookup(const std::function<Uuid()>& lookup) {
  try {
    return {lookup(), {}};
  } catch (const std::exception& e) {
    return {{}, e.what()};
  } catch (...) {
    return {{}, "unknown exception"};
  }
}

}  // namespace

OutboxDrainWorker::OutboxDrainWorker(WorkStore& store, Transport& transport,
                                     MessageTypeResolver resolver, OutboxDrainWorkerOptions options,
                                     DeferredOutboxChannel* channel)
    : store_(store),
      transport_(transport),
      resolver_(std::move(resolver)),
      options_(std::move(options)),
      channel_(channel) {
  resolve_at_startup();
  if (channel_ != nullptr) channel_->set_wake([this] { loop_.notify(); });
  commit_listener_ = store_.add_commit_listener([this](const CommitInfo& info) {
    if (info.outbox_written) loop_.notify();
  });
}

OutboxDrainWorker::~OutboxDrainWorker() {
  stop();
  store_.remove_commit_listener(commit_listener_);
  if (channel_ != nullptr) channel_->set_wake({});
}

Uuid OutboxDrainWorker::source_service_id() const {
  std::lock_guard lock(id_mutex_);
  return source_service_id_;
}

void OutboxDrainWorker::resolve_at_startup() {
  if (!options_.local_service_id_lookup) return;
  ++lookup_attempts_;
  Lookup answer = run_lookup(options_.local_service_id_lookup);
  if (!answer.error.empty()) {
    log(options_.logger, spdlog::level::warn, log_events::kSourceServiceIdLookupFailedAtStartup,
        "local service identity lookup failed at start-up ({}); envelopes publish with an empty "
        "SourceServiceId until a later batch resolves it",
        answer.error);
    return;
  }
  if (answer.id.is_nil()) {
    log(options_.logger, spdlog::level::warn, log_events::kSourceServiceIdEmptyAtStartup,
        "local service identity is empty at start-up; envelopes publish with an empty "
        "SourceServiceId until a later batch resolves it");
    return;
  }
  std::lock_guard lock(id_mutex_);
  source_service_id_ = answer.id;
  log(options_.logger, spdlog::level::info, log_events::kSourceServiceIdResolved,
      "local service identity resolved to {}", answer.id);
}

void OutboxDrainWorker::resolve_before_batch() {
  if (!options_.local_service_id_lookup) return;
  {
    std::lock_guard lock(id_mutex_);
    if (!source_service_id_.is_nil()) return;
  }
  const int attempt = ++lookup_attempts_;
  Lookup answer = run_lookup(options_.local_service_id_lookup);
  if (!answer.id.is_nil() && answer.error.empty()) {
    std::lock_guard lock(id_mutex_);
    source_service_id_ = answer.id;
    log(options_.logger, spdlog::level::info, log_events::kSourceServiceIdResolved,
        "local service identity resolved to {}", answer.id);
    return;
  }
  log(options_.logger, spdlog::level::debug, log_events::kSourceServiceIdRetry,
      "local service identity still unresolved (lookup attempt {}: {}); retrying before the "
      "next batch",
      attempt, answer.error.empty() ? std::string("empty id") : answer.error);
}

absl::StatusOr<DrainCycleResult> OutboxDrainWorker::run_once() {
  DrainCycleResult result;
  WorkBatchRequest request;
  if (channel_ != nullptr) request.new_outbox = channel_->drain_all();
  result.deferred_written = request.new_outbox.size();
  resolve_before_batch();
  const Uuid source_id = source_service_id();

  request.claim_inbox = false;
  request.max_items = options_.max_batch;
  request.debug_mode = options_.debug_mode;
  absl::StatusOr<std::vector<WorkItem>> items = store_.process_work_batch(request);
  if (!items.ok()) {
    // The batch rolled back: give the deferred messages back for the next cycle.
    if (channel_ != nullptr) {
      for (OutboxMessage& message : request.new_outbox) channel_->queue(std::move(message));
    }
    return items.status();
  }

  std::vector<WorkCompletion> completions;
  std::vector<WorkFailure> failures;
  std::vector<Group> groups;
  for (const WorkItem& item : *items) {
    std::optional<TransportDestination> destination =
        publish_destination(item, options_.shared_inbox_topic);
    if (!destination) {
      completions.push_back({WorkSource::Outbox, item.message_id, MessageStatus::Published});
      ++result.event_store_only;
      continue;
    }
    absl::StatusOr<Envelope> envelope = deserialize_envelope(
        item.envelope_json, [&](std::string_view name) { return resolver_(name); });
    if (!envelope.ok()) {
      const std::string reason(envelope.status().message());
      store_internal::report_quarantined(options_.logger, "wh_outbox", item.message_id, reason);
      failures.push_back({WorkSource::Outbox, item.message_id, MessageStatus::None, reason,
                          FailureReason::SerializationError, /*quarantine=*/true});
      ++result.quarantined;
      continue;
    }
    TransportMessage message{item.message_id, item.message_type, item.envelope_json, item.stream_id,
                             item.is_event};
    bool reserialize = false;
    if (envelope->source_service_id.is_nil() && !source_id.is_nil()) {
      envelope->source_service_id = source_id;
      reserialize = true;
    }
    if (options_.lifecycle) {
      // PreOutbox receptors run before the message leaves; their records leave with it.
      const std::size_t records_before = envelope->receptor_invocations.size();
      absl::Status status = options_.lifecycle(*envelope, Stage::PreOutboxDetached);
      if (status.ok()) status = options_.lifecycle(*envelope, Stage::PreOutboxInline);
      if (!status.ok()) {
        failures.push_back({WorkSource::Outbox, item.message_id, MessageStatus::None,
                            std::string(status.message()), FailureReason::Unknown});
        ++result.failed;
        continue;
      }
      reserialize = reserialize || envelope->receptor_invocations.size() != records_before;
    }
    if (reserialize) message.envelope_json = serialize_envelope(*envelope);
    auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.destination.address == destination->address &&
             g.destination.routing_key == destination->routing_key && g.stream_id == item.stream_id;
    });
    if (group == groups.end()) {
      groups.push_back({*std::move(destination), item.stream_id, {}, {}});
      group = groups.end() - 1;
    }
    group->messages.push_back(std::move(message));
    group->envelopes.push_back(*std::move(envelope));
  }

  for (Group& group : groups) {
    if (!transport_.is_ready()) break;  // rows stay leased to us; the next cycle retries
    const absl::Status status = transport_.publish(group.destination, group.messages);
    if (status.ok() && options_.lifecycle) {
      for (Envelope& published : group.envelopes) {
        for (Stage stage : {Stage::PostOutboxDetached, Stage::PostOutboxInline}) {
          if (absl::Status post = options_.lifecycle(published, stage); !post.ok()) {
            log(options_.logger, spdlog::level::warn, log_events::kWorkerCycleFailed,
                "{} at {} for {} failed after publishing: {}", published.payload.info()->wire_name,
                to_string(stage), published.message_id, std::string(post.message()));
          }
        }
      }
    }
    for (const TransportMessage& message : group.messages) {
      if (status.ok()) {
        completions.push_back({WorkSource::Outbox, message.message_id, MessageStatus::Published});
        ++result.published;
      } else {
        failures.push_back({WorkSource::Outbox, message.message_id, MessageStatus::None,
                            std::string(status.message()), FailureReason::TransportException});
        ++result.failed;
      }
    }
  }
  if (absl::Status status = store_.complete_work(completions, failures); !status.ok()) {
    return status;  // leases lapse and the rows are re-offered; the inbox side deduplicates
  }
  return result;
}

void OutboxDrainWorker::start() {
  loop_.start([this] { return run_once().status(); }, "outbox drain", options_.poll_interval,
              options_.logger);
}

void OutboxDrainWorker::stop() { loop_.stop(); }

}  // namespace whizbang
