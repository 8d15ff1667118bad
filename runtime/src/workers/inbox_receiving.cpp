// The delivering side of InboxWorker: the door, storing a delivered batch (message by message
// when the batch as a whole fails), refusals and the delivery health (inbox_worker.hpp).
#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "inbox_admission.hpp"
#include "refused_deliveries.hpp"
#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/observability/log_rate_limiter.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace whizbang {
namespace {

// Messages whose failures to be stored are remembered at once; beyond it the tally starts over
// (a bad message then gets a few more tries, nothing worse).
constexpr std::size_t kMaxTalliedMessages = 4096;

void count(const std::shared_ptr<Metrics>& metrics, std::string_view name, std::int64_t delta,
           std::span<const MetricTag> tags = {}) {
  if (metrics && delta > 0) {
    metrics->add(metric_names::kWorkCoordinatorMeter, name, delta, tags);
  }
}

}  // namespace

Span start_receive_span(const Tracer& tracer, std::string_view system,
                        const TransportMessage& message, const InboxMessage& row,
                        const std::optional<TraceContext>& parent) {
  namespace sa = span_attributes;
  Span span(&tracer, span_names::kReceivePrefix, row.message_type, SpanKind::Consumer,
            parent ? &*parent : nullptr);
  if (!span.recording()) return span;
  span.set_string(sa::kMessagingSystem, system)
      .set_string(sa::kMessagingOperationType, span_values::kOperationReceive)
      .set_string(sa::kMessagingMessageId, message.message_id.to_string())
      .set_string(sa::kMessageType, row.message_type)
      .set_string(sa::kHandler, row.handler_name);
  return span;
}

void finish_receive_spans(std::vector<Span>& spans, const std::vector<InboxMessage>& rows,
                          const std::optional<std::set<MessageId>>& newly_stored,
                          std::size_t duplicates, const absl::Status& outcome) {
  for (std::size_t row = 0; row < spans.size() && row < rows.size(); ++row) {
    Span& span = spans[row];
    const bool duplicate =
        newly_stored ? !newly_stored->contains(rows[row].message_id) : duplicates == rows.size();
    if (outcome.ok() && duplicate) span.set_bool(span_attributes::kDeduplicated, true);
    mark_failed(span, outcome);
    span.end();
  }
}

absl::StatusOr<std::unique_ptr<TransportSubscription>> InboxWorker::subscribe(
    Transport& transport) {
  refusals_to_transport_ = transport.dead_letters_refused();
  return transport.subscribe(
      options_.service_name, options_.bindings,
      [this](const TransportDestination&, std::span<const TransportMessage> batch) {
        return receive(batch);
      });
}

InboxWorker::Admission InboxWorker::admit(std::span<const TransportMessage> batch) const {
  const DeliveryDoor door(resolver_, options_.envelope_limits, options_.signing,
                          /*read_trace_parent=*/options_.tracer != nullptr);
  Admission admission;
  admission.rows.reserve(batch.size());
  admission.row_of.reserve(batch.size());
  for (std::size_t index = 0; index < batch.size(); ++index) {
    const TransportMessage& message = batch[index];
    DoorVerdict verdict = door.check(message);
    if (verdict.refused) {
      admission.refused.push_back({index, *verdict.refused, std::move(verdict.reason)});
      continue;
    }
    // This service's own event back from the broker, doing nothing here: dropped unstored.
    if (options_.drop_own_event && message.is_event && !verdict.source_service.is_nil() &&
        verdict.source_service == options_.service_id && options_.drop_own_event(*verdict.type)) {
      ++admission.own_dropped;
      continue;
    }
    InboxMessage row;
    row.message_id = message.message_id;
    // Stored under the wire name, however the sender named the type (a .NET service sends its
    // assembly-qualified name), and handled by the handler of that name.
    if (verdict.type->wire_name == message.message_type) {
      row.handler_name = options_.handler_name(message);
    } else {
      TransportMessage renamed = message;
      renamed.message_type = std::string(verdict.type->wire_name);
      row.handler_name = options_.handler_name(renamed);
    }
    row.message_type = std::string(verdict.type->wire_name);
    row.envelope_json = message.envelope_json;
    row.is_event = message.is_event;
    row.stream_id = message.stream_id ? message.stream_id : verdict.stream_id;
    row.source_service_id = verdict.source_service;
    if (options_.tracer) {
      admission.spans.push_back(start_receive_span(*options_.tracer, options_.messaging_system,
                                                   message, row, verdict.trace_parent));
    }
    admission.rows.push_back(std::move(row));
    admission.row_of.push_back(index);
  }
  return admission;
}

absl::Status InboxWorker::store_admitted(Admission& admission, bool handle_here) {
  if (admission.rows.empty()) return absl::OkStatus();
  if (handle_here) {
    absl::StatusOr<bool> handled = handle_delivered(admission.rows, admission.duplicates);
    if (!handled.ok()) return handled.status();
    if (*handled) return absl::OkStatus();
  }
  absl::StatusOr<std::vector<MessageId>> stored =
      store_.store_inbox_messages(admission.rows, options_.service_id);
  if (!stored.ok()) return stored.status();
  admission.duplicates = admission.rows.size() - stored->size();
  if (!admission.spans.empty()) admission.newly_stored.emplace(stored->begin(), stored->end());
  return absl::OkStatus();
}

bool store_wide(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kCancelled:
      return true;
    default:
      return false;
  }
}

absl::Status InboxWorker::store_one_by_one(Admission& admission,
                                           const absl::Status& batch_failure) {
  std::optional<LogRateLimiter::Logged> logged;
  {
    std::lock_guard lock(delivery_mutex_);
    logged = refusal_log_->occurred("stored one by one");
  }
  if (logged) {
    log(options_.logger, spdlog::level::warn, log_events::kInboxDeliveryStoreFailed,
        "a delivered batch of {} messages could not be stored ({}); storing them one by one{}",
        admission.rows.size(), batch_failure.message(), logged->suffix());
  }
  absl::Status again = absl::OkStatus();  // not OK: a message to offer again
  admission.duplicates = 0;
  for (std::size_t row = 0; row < admission.rows.size(); ++row) {
    const InboxMessage& message = admission.rows[row];
    absl::StatusOr<std::vector<MessageId>> stored =
        store_.store_inbox_messages({&message, 1}, options_.service_id);
    if (stored.ok()) {
      admission.duplicates += stored->empty() ? 1 : 0;
      std::lock_guard lock(delivery_mutex_);
      store_tries_.erase(message.message_id);
      continue;
    }
    if (store_wide(stored.status())) return stored.status();  // the store went down or full
    int tries = 0;
    {
      std::lock_guard lock(delivery_mutex_);
      if (store_tries_.size() >= kMaxTalliedMessages) store_tries_.clear();
      tries = ++store_tries_[message.message_id];
      if (tries >= options_.max_store_tries) store_tries_.erase(message.message_id);
    }
    if (tries < options_.max_store_tries) {
      again = stored.status();
      continue;
    }
    admission.refused.push_back(
        {admission.row_of[row], RefusalKind::Unstorable,
         fmt::format("the store refused it {} times: {}", tries, stored.status().message())});
  }
  std::sort(admission.refused.begin(), admission.refused.end(),
            [](const auto& a, const auto& b) { return a.index < b.index; });
  return again;
}

DeliveryOutcome InboxWorker::settle_refusals(std::span<const TransportMessage> batch,
                                             Admission& admission) {
  DeliveryOutcome outcome;
  if (admission.refused.empty()) return outcome;
  const bool to_transport = refusals_to_transport_.load();
  std::vector<RefusedCopy> kept;
  for (Admission::Refusal& refusal : admission.refused) {
    const TransportMessage& message = batch[refusal.index];
    const MetricTag tags[] = {{metric_names::kReasonTag, to_string(refusal.kind)}};
    count(options_.metrics, metric_names::kInboxDeliveryRefused, 1, tags);
    std::optional<LogRateLimiter::Logged> logged;
    {
      std::lock_guard lock(delivery_mutex_);
      logged = refusal_log_->occurred(to_string(refusal.kind));
    }
    if (logged) {
      log(options_.logger, spdlog::level::warn, log_events::kEnvelopeRefused,
          "delivery {} ({}) refused, {}: {}{}", message.message_id, message.message_type,
          to_transport ? "to the transport's dead letters"
                       : fmt::format("kept as dead letter {}", refused_copy_id(message)),
          refusal.reason, logged->suffix());
    }
    if (to_transport) {
      outcome.refused.push_back({refusal.index, std::move(refusal.reason)});
    } else {
      kept.push_back({&message, std::move(refusal.reason)});
    }
  }
  if (absl::Status status = keep_refused_deliveries(store_, options_.service_id, kept);
      !status.ok()) {
    return status;  // everything comes again; what was stored is a duplicate then
  }
  return outcome;
}

void InboxWorker::note_delivery(const absl::Status& stored, const Admission& admission) {
  const std::size_t duplicates = admission.duplicates;
  count(options_.metrics, metric_names::kInboxDuplicateDropped,
        static_cast<std::int64_t>(duplicates));
  if (duplicates > 0) {
    log(options_.logger, spdlog::level::debug, log_events::kInboxDuplicateDropped,
        "{} delivered message{} received before, dropped as duplicate{}", duplicates,
        duplicates == 1 ? " was" : "s were", duplicates == 1 ? "" : "s");
  }
  if (!stored.ok()) count(options_.metrics, metric_names::kInboxDeliveryStoreFailed, 1);
  // Counted once acknowledged (a batch that failed comes again, own events and all).
  if (stored.ok()) {
    count(options_.metrics, metric_names::kInboxOwnEventDropped,
          static_cast<std::int64_t>(admission.own_dropped));
  }
  std::lock_guard lock(delivery_mutex_);
  health_.duplicates_dropped += duplicates;
  if (stored.ok()) {
    health_.own_events_dropped += admission.own_dropped;
    health_.refused_deliveries += admission.refused.size();
    health_.failing_since.reset();
    return;
  }
  ++health_.failed_batches;
  health_.last_error = std::string(stored.message());
  if (!health_.failing_since) health_.failing_since = std::chrono::steady_clock::now();
}

DeliveryHealth InboxWorker::delivery_health() const {
  std::lock_guard lock(delivery_mutex_);
  return health_;
}

}  // namespace whizbang
