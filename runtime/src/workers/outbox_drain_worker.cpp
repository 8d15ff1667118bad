#include "whizbang/workers/outbox_drain_worker.hpp"

#include <exception>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "lease_keeper.hpp"
#include "outbox_destination.hpp"
#include "outbox_drain_batch.hpp"
#include "outbox_stage_firing.hpp"
#include "throughput_counters.hpp"
#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/message/envelope_parse_memo.hpp"
#include "whizbang/observability/row_quarantine.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {
namespace {

using outbox_drain::Group;
using outbox_drain::remove_rows_if;

void report_lease_lost(const std::shared_ptr<spdlog::logger>& logger, const MessageId& id,
                       std::string_view type, std::string_view when, DrainCycleResult& result) {
  log(logger, spdlog::level::warn, log_events::kLeaseLost,
      "outbox row {} ({}) was taken over by another instance {}; its outbox stages and its "
      "completion are left to that instance",
      id, type, when);
  ++result.lease_lost;
}

// Takes the rows whose lease `leases` found lost out of a published group: no completion and no
// further PostOutbox stage here (see publish()).
void drop_lost_rows(Group& group, const LeaseKeeper& leases,
                    const std::shared_ptr<spdlog::logger>& logger, DrainCycleResult& result) {
  remove_rows_if(group, [&](const TransportMessage& message) {
    if (!leases.lost(message.message_id)) return false;
    report_lease_lost(logger, message.message_id, message.message_type, "after its publish",
                      result);
    return true;
  });
}

}  // namespace

OutboxDrainWorker::OutboxDrainWorker(WorkStore& store, Transport& transport,
                                     MessageTypeResolver resolver, OutboxDrainWorkerOptions options,
                                     DeferredOutboxChannel* channel)
    : OutboxDrainWorker(store, std::move(resolver), std::move(options), channel) {
  transport_ = &transport;
}

OutboxDrainWorker::OutboxDrainWorker(WorkStore& store, MessageTypeResolver resolver,
                                     OutboxDrainWorkerOptions options,
                                     DeferredOutboxChannel* channel)
    : store_(store),
      transport_(nullptr),
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

absl::StatusOr<DrainCycleResult> OutboxDrainWorker::run_once() {
  const EnvelopeParseMemo memo;  // an event row's append and its publishing: one parse
  if (unrecorded_) {
    // Published, but not recorded: recorded before anything is claimed, rather than publishing
    // these rows again at once.
    if (absl::Status status = record(*unrecorded_); !status.ok()) return status;
    unrecorded_.reset();
  }
  DrainCycleResult result;
  WorkBatchRequest request;
  if (channel_ != nullptr) request.new_outbox = channel_->drain_all();
  result.deferred_written = request.new_outbox.size();
  resolve_before_batch();
  request.claim_inbox = false;
  request.event_store_outbox_only = transport_ == nullptr;
  request.max_items = options_.max_batch;
  request.debug_mode = options_.debug_mode;
  // The claim appends the event rows' events to their streams before anything is published:
  // a service that hears of an event can answer before this cycle ends, and the answer must
  // find its cause in the stream (docs/guide/06-stores-and-workers.md).
  absl::StatusOr<std::vector<WorkItem>> items = store_.process_work_batch(request);
  if (!items.ok()) {
    // The batch rolled back: give the deferred messages back for the next cycle.
    if (channel_ != nullptr) {
      for (OutboxMessage& message : request.new_outbox) channel_->queue(std::move(message));
    }
    return items.status();
  }
  const std::size_t claimed = items->size();

  Batch batch;
  prepare(*items, batch, result);
  // A publish that fails here leaves the rows claimed: the next claim offers them again (they
  // are leased to this instance).
  if (absl::Status status = publish(batch, result); !status.ok()) return status;
  Record done{std::move(batch.completions), std::move(batch.failures), std::move(batch.deferrals),
              std::move(batch.published_types)};
  if (absl::Status status = record(done); !status.ok()) {
    unrecorded_ = std::move(done);
    return status;
  }
  // A full claim that moved something: more is likely waiting (worker_loop.hpp). Rows held
  // back (the transport not ready) move nothing: the poll paces those retries.
  const std::size_t moved = result.published + result.event_store_only + result.failed +
                            result.quarantined + result.lease_lost + result.deferred;
  if (claimed >= options_.max_batch && moved > 0) loop_.notify();
  return result;
}

absl::Status OutboxDrainWorker::record(const Record& record) {
  absl::Status status = write_record(record);
  // Counted here, once the completions committed (docs/guide/19-operating-services.md): a record
  // that failed is recorded again next cycle, and counted then.
  if (status.ok()) {
    count_by_type(options_.metrics, metric_names::kOutboxPublished, record.published_types);
  }
  return status;
}

absl::Status OutboxDrainWorker::write_record(const Record& record) {
  if (record.deferrals.empty()) {
    if (record.completions.empty() && record.failures.empty()) {
      return absl::OkStatus();  // an idle cycle takes no write lock
    }
    return store_.complete_work(record.completions, record.failures);
  }
  Transaction transaction(store_);
  if (!transaction.status().ok()) return transaction.status();
  if (absl::Status status = store_.defer_work(record.deferrals); !status.ok()) return status;
  if (absl::Status status = store_.complete_work(record.completions, record.failures);
      !status.ok()) {
    return status;
  }
  return transaction.commit();
}

bool OutboxDrainWorker::admit(Batch& batch, Group& group, bool& trial, DrainCycleResult& result) {
  trial = false;
  if (!options_.circuit_breakers) return true;
  const CircuitBreakers::Admission admission =
      options_.circuit_breakers->admit(group.destination.address);
  if (!admission.attempt) {
    batch.defer_group(group, admission.defer, result);
    return false;
  }
  trial = admission.trial;
  // One row tries the destination; the others come with the next cycle, which the trial's
  // outcome decides.
  if (trial && batch.keep_first(group, result) > 0) loop_.notify();
  return true;
}

outbox_drain::StageFiring OutboxDrainWorker::fire_stage(const MessageId& id, Envelope& envelope,
                                                        Stage stage) {
  const MessageTypeInfo* type = envelope.payload.info();
  if (options_.has_receptors_at && type != nullptr && !options_.has_receptors_at(*type, stage)) {
    // Nothing fires, nothing is recorded: no transaction, no lease to check.
    return {false, false,
            status_of_call(to_string(stage), [&] { return options_.lifecycle(envelope, stage); })};
  }
  // Its receptors' spans (and what they emit) continue the message's trace, not a new one.
  const IncomingTrace created = read_incoming_trace(envelope, nullptr);
  const TraceScope trace(created.context ? &*created.context : nullptr);
  return outbox_drain::fire_while_leased(store_, id, envelope, stage, options_.lifecycle);
}

std::set<MessageId> OutboxDrainWorker::fire_post_outbox_stages(Group& group, LeaseKeeper& leases) {
  std::set<MessageId> not_run;
  for (std::size_t i = 0; i < group.messages.size(); ++i) {
    const MessageId& id = group.messages[i].message_id;
    Envelope& published = group.envelopes[i];
    for (Stage stage : {Stage::PostOutboxDetached, Stage::PostOutboxInline}) {
      if (leases.lost(id)) break;
      const outbox_drain::StageFiring firing = fire_stage(id, published, stage);
      if (firing.lease_lost) leases.mark_lost(id);
      if (firing.not_run) not_run.insert(id);
      if (!firing.status.ok()) {
        log(options_.logger, spdlog::level::warn, log_events::kWorkerCycleFailed,
            "{} at {} for {} failed after publishing: {}", group.messages[i].message_type,
            to_string(stage), published.message_id, firing.status.message());
      }
      if (firing.not_run) break;
    }
  }
  return not_run;
}

void OutboxDrainWorker::fail(Batch& batch, const WorkItem& item, const absl::Status& status,
                             FailureReason reason, DrainCycleResult& result) {
  WorkFailure& failure = batch.failures.emplace_back(
      WorkFailure{WorkSource::Outbox, item.message_id, MessageStatus::None,
                  std::string(status.message()), reason, is_permanent(status)});
  options_.retry_policies.apply(status, item.attempts, failure);
  if (item.stream_id) batch.stopped_streams.insert(*item.stream_id);
  ++result.failed;
}

void OutboxDrainWorker::prepare(const std::vector<WorkItem>& items, Batch& batch,
                                DrainCycleResult& result) {
  const Uuid source_id = source_service_id();
  for (const WorkItem& item : items) {
    if (batch.stopped(item.stream_id)) {
      batch.release(item.message_id, result);
      continue;
    }
    std::optional<TransportDestination> destination =
        outbox_drain::destination_of(item, options_.shared_inbox_topic, options_.command_inboxes);
    if (!destination) {
      batch.completions.push_back({WorkSource::Outbox, item.message_id, MessageStatus::Published});
      if (options_.metrics) batch.published_types.push_back(item.message_type);
      ++result.event_store_only;
      continue;
    }
    absl::StatusOr<Envelope> envelope = deserialize_envelope(
        item.envelope_json, [&](std::string_view name) { return resolver_(name); });
    if (!envelope.ok()) {
      const std::string reason(envelope.status().message());
      log_quarantined_row(options_.logger, "wh_outbox", item.message_id, reason);
      batch.failures.push_back({WorkSource::Outbox, item.message_id, MessageStatus::None, reason,
                                FailureReason::SerializationError, /*dead_letter=*/true});
      ++result.quarantined;
      continue;
    }
    TransportMessage message{item.message_id, item.message_type, item.envelope_json, item.stream_id,
                             item.is_event};
    if (const MessageTypeInfo* info = envelope->payload.info()) {
      message.dotnet_type = std::string(info->dotnet_type);
    }
    if (!envelope->hops.empty()) {
      message.correlation_id = envelope->hops.front().correlation_id;
      message.causation_id = envelope->hops.front().causation_id;
    }
    bool reserialize = false;
    if (envelope->source_service_id.is_nil() && !source_id.is_nil()) {
      envelope->source_service_id = source_id;
      reserialize = true;
    }
    if (options_.lifecycle) {
      // PreOutbox receptors run before the message leaves; their records leave with it.
      const std::size_t records_before = envelope->receptor_invocations.size();
      outbox_drain::StageFiring firing =
          fire_stage(item.message_id, *envelope, Stage::PreOutboxDetached);
      if (!firing.lease_lost && firing.status.ok()) {
        firing = fire_stage(item.message_id, *envelope, Stage::PreOutboxInline);
      }
      if (firing.lease_lost) {
        report_lease_lost(options_.logger, item.message_id, item.message_type,
                          "before its PreOutbox stages", result);
        // The rest of its stream in this batch waits: it must not leave before this row.
        if (item.stream_id) batch.stopped_streams.insert(*item.stream_id);
        continue;
      }
      if (!firing.status.ok()) {
        fail(batch, item, firing.status, FailureReason::Unknown, result);
        continue;
      }
      reserialize = reserialize || envelope->receptor_invocations.size() != records_before;
    }
    if (reserialize) message.envelope_json = serialize_envelope(*envelope);
    if (options_.signing.mode != EnvelopeSigningMode::Off) {
      if (absl::Status signed_ = sign_envelope_json(message.envelope_json, options_.signing.keys);
          !signed_.ok()) {
        fail(batch, item, signed_, FailureReason::ValidationError, result);
        continue;
      }
    }
    Group& group = batch.group_for(*std::move(destination), item.stream_id);
    group.messages.push_back(std::move(message));
    group.envelopes.push_back(*std::move(envelope));
  }
}

absl::Status OutboxDrainWorker::publish(Batch& batch, DrainCycleResult& result) {
  LeaseKeeper leases(store_, options_.lease_renewal_interval);
  for (std::size_t index = 0; index < batch.groups.size(); ++index) {
    Group& group = batch.groups[index];
    if (transport_ == nullptr || !transport_->is_ready()) {
      // Not ready: the rows wait for the next cycle.
      batch.release_group(group, result);
      continue;
    }
    // The rows of a stream with an earlier row that failed in this batch wait for its retry.
    batch.withhold_stopped_streams(group, result);
    if (group.messages.empty()) continue;
    bool trial = false;
    if (!admit(batch, group, trial, result)) continue;
    std::vector<WorkLease> remaining;
    for (std::size_t later = index; later < batch.groups.size(); ++later) {
      for (const TransportMessage& message : batch.groups[later].messages) {
        remaining.push_back({WorkSource::Outbox, message.message_id});
      }
    }
    if (absl::Status status = leases.renew_if_due(remaining); !status.ok()) return status;
    std::vector<Span> spans = publish_spans(group);
    const absl::Status status = status_of_call("transport publish", [&] {
      return transport_->publish(group.destination, group.messages);
    });
    for (Span& span : spans) mark_failed(span, status);
    spans.clear();  // ended: the publish is what they time
    const bool transport_down =
        !status.ok() && (!transport_->is_ready() || is_transport_settling(status));
    if (CircuitBreakers* breakers = options_.circuit_breakers.get()) {
      // The destination's verdict; a broker that is down or settling judges no destination.
      if (status.ok()) {
        breakers->succeeded(group.destination.address);
      } else if (!transport_down && !is_permanent(status)) {
        breakers->failed(group.destination.address);
      } else if (trial) {
        breakers->abandoned(group.destination.address);
      }
    }
    if (transport_down) {
      // The connection went down under the publish, or the broker is settling after a restart:
      // the transport's failure, not the rows'. They wait for the next cycle, without an
      // attempt or a backoff (a broker restart must not delay them by minutes, nor bring them
      // closer to the dead letters).
      batch.release_group(group, result);
      continue;
    }
    if (status.ok()) {
      // A publish can outlast the lease (a broker stopping under it): a row another instance
      // took over meanwhile is theirs to record, and its stages theirs to fire.
      if (absl::Status renewed = leases.renew_if_due(remaining); !renewed.ok()) return renewed;
      std::set<MessageId> not_run;
      if (options_.lifecycle) not_run = fire_post_outbox_stages(group, leases);
      drop_lost_rows(group, leases, options_.logger, result);
      // A row whose PostOutbox stage the store could not run is not completed: it is offered
      // again, published again (the receivers drop the copy) and its stages run then.
      remove_rows_if(group, [&](const TransportMessage& message) {
        if (!not_run.contains(message.message_id)) return false;
        batch.release(message.message_id, result);
        return true;
      });
    }
    for (std::size_t i = 0; i < group.messages.size(); ++i) {
      const TransportMessage& message = group.messages[i];
      if (status.ok()) {
        batch.completions.push_back(
            {WorkSource::Outbox, message.message_id, MessageStatus::Published});
        if (options_.metrics) batch.published_types.push_back(message.message_type);
        ++result.published;
      } else {
        WorkItem item;
        item.message_id = message.message_id;
        item.stream_id = message.stream_id;
        fail(batch, item, status, FailureReason::TransportException, result);
      }
    }
  }
  return absl::OkStatus();
}

std::vector<Span> OutboxDrainWorker::publish_spans(const outbox_drain::Group& group) const {
  std::vector<Span> spans;
  if (!options_.tracer) return spans;
  namespace sa = span_attributes;
  spans.reserve(group.messages.size());
  for (std::size_t i = 0; i < group.messages.size(); ++i) {
    const IncomingTrace created = read_incoming_trace(group.envelopes[i], nullptr);
    Span& span = spans.emplace_back(options_.tracer.get(), span_names::kPublishPrefix,
                                    group.destination.address, SpanKind::Producer,
                                    created.context ? &*created.context : nullptr);
    if (!span.recording()) continue;
    span.set_string(sa::kMessagingSystem, transport_->messaging_system())
        .set_string(sa::kMessagingOperationType, span_values::kOperationPublish)
        .set_string(sa::kMessagingDestinationName, group.destination.address)
        .set_string(sa::kMessagingMessageId, group.messages[i].message_id.to_string())
        .set_string(sa::kMessageType, group.messages[i].message_type);
    if (!group.destination.routing_key.empty()) {
      span.set_string(sa::kRabbitMqRoutingKey, group.destination.routing_key);
    }
  }
  return spans;
}

void OutboxDrainWorker::start() {
  loop_.start([this] { return run_once().status(); }, "outbox drain", options_.poll_interval,
              options_.logger);
}

void OutboxDrainWorker::stop() { loop_.stop(); }

}  // namespace whizbang
