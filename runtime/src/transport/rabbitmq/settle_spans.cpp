#include "rabbitmq/settle_spans.hpp"

#include <string>

#include "whizbang/observability/trace_names.hpp"

namespace whizbang::rabbitmq {

SettleSpans::SettleSpans(const DeliveryOutcome& outcome, std::span<const TransportMessage> batch,
                         const TransportDestination& destination, const std::vector<bool>& refused,
                         bool requeued) {
  if (outcome.tracer == nullptr || outcome.settle_parents.empty()) return;
  namespace sa = span_attributes;
  namespace sv = span_values;
  for (std::size_t i = 0; i < batch.size() && i < outcome.settle_parents.size(); ++i) {
    const std::optional<TraceContext>& parent = outcome.settle_parents[i];
    if (!parent) continue;
    Span& span = spans_.emplace_back(outcome.tracer, span_names::kSettlePrefix, destination.address,
                                     SpanKind::Client, &*parent);
    if (!span.recording()) continue;
    const std::string_view operation = i < refused.size() && refused[i] ? sv::kSettleReject
                                       : requeued                       ? sv::kSettleNack
                                                                        : sv::kSettleAck;
    span.set_string(sa::kMessagingSystem, sv::kSystemRabbitMq)
        .set_string(sa::kMessagingOperationType, sv::kOperationSettle)
        .set_string(sa::kMessagingOperationName, operation)
        .set_string(sa::kMessagingDestinationName, destination.address)
        .set_string(sa::kMessagingMessageId, batch[i].message_id.to_string());
    if (!destination.routing_key.empty()) {
      span.set_string(sa::kRabbitMqRoutingKey, destination.routing_key);
    }
  }
}

void SettleSpans::end(const absl::Status& settled) {
  for (Span& span : spans_) {
    if (!settled.ok() && span.recording()) {
      span.set_error(absl::StatusCodeToString(settled.code()), std::string(settled.message()));
    }
    span.end();
  }
  spans_.clear();
}

}  // namespace whizbang::rabbitmq
