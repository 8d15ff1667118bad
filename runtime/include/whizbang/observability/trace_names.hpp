// Every span name, span attribute key and attribute value the runtime's tracing writes, in one
// place (as metric_names is for metrics): the guide (docs/guide/18-tracing.md), exporters and
// tests use these constants, never spelled-out strings.
//
// Keys follow OpenTelemetry's messaging semantic conventions where one applies
// (`messaging.system`, `messaging.operation.type`, ...); what only Whizbang knows (the
// exactly-once decision, derived ids, dedup drops) is under `whizbang.*`.
#pragma once

#include <string_view>

namespace whizbang {

namespace span_names {
// Span names are "<prefix><subject>": low-cardinality, as the conventions ask.
inline constexpr std::string_view kDispatchPrefix = "dispatch ";        // + message type (Internal)
inline constexpr std::string_view kPublishPrefix = "publish ";          // + destination (Producer)
inline constexpr std::string_view kReceivePrefix = "receive ";          // + message type (Consumer)
inline constexpr std::string_view kProcessPrefix = "process ";          // + message type (Consumer)
inline constexpr std::string_view kReceptorPrefix = "receptor ";        // + receptor id (Internal)
inline constexpr std::string_view kPerspectivePrefix = "perspective ";  // + perspective name
inline constexpr std::string_view kSettlePrefix = "settle ";            // + destination (Client)
}  // namespace span_names

namespace span_attributes {
// OpenTelemetry messaging semantic conventions.
inline constexpr std::string_view kMessagingSystem = "messaging.system";
inline constexpr std::string_view kMessagingOperationType = "messaging.operation.type";
// The system's own name of the operation: a settle's ack, nack (requeued) or reject.
inline constexpr std::string_view kMessagingOperationName = "messaging.operation.name";
inline constexpr std::string_view kMessagingDestinationName = "messaging.destination.name";
inline constexpr std::string_view kMessagingMessageId = "messaging.message.id";
inline constexpr std::string_view kMessagingConversationId = "messaging.message.conversation_id";
inline constexpr std::string_view kRabbitMqRoutingKey =
    "messaging.rabbitmq.destination.routing_key";
inline constexpr std::string_view kExceptionType = "exception.type";
inline constexpr std::string_view kExceptionMessage = "exception.message";

// Whizbang's own.
inline constexpr std::string_view kMessageType = "whizbang.message.type";
inline constexpr std::string_view kServiceName = "whizbang.service.name";
inline constexpr std::string_view kDispatchMode = "whizbang.dispatch.mode";
inline constexpr std::string_view kHandler = "whizbang.handler";
inline constexpr std::string_view kAttempt = "whizbang.attempt";
inline constexpr std::string_view kReceptorId = "whizbang.receptor.id";
inline constexpr std::string_view kStage = "whizbang.stage";
inline constexpr std::string_view kPerspective = "whizbang.perspective";
// The exactly-once guardrail's decision for a receptor (values in span_values below).
inline constexpr std::string_view kExactlyOnceDecision = "whizbang.exactly_once.decision";
// Where the prior invocation that stopped the receptor was recorded.
inline constexpr std::string_view kExactlyOncePriorService = "whizbang.exactly_once.prior_service";
inline constexpr std::string_view kExactlyOncePriorStage = "whizbang.exactly_once.prior_stage";
// An emission's id derived from its handling (docs/guide/05-emission-identity.md).
inline constexpr std::string_view kEmissionDerivedFrom = "whizbang.emission.derived_from";
inline constexpr std::string_view kEmissionOrdinal = "whizbang.emission.ordinal";
// True when the store dropped the row as one it already had (outbox emission deduplicated,
// inbox duplicate).
inline constexpr std::string_view kDeduplicated = "whizbang.deduplicated";
// The traceparent found on the envelope was malformed and ignored (a new trace was started).
inline constexpr std::string_view kTraceParentInvalid = "whizbang.trace_parent.invalid";
}  // namespace span_attributes

namespace span_values {
inline constexpr std::string_view kSystemWhizbang = "whizbang";
inline constexpr std::string_view kSystemRabbitMq = "rabbitmq";
inline constexpr std::string_view kOperationPublish = "publish";
inline constexpr std::string_view kOperationReceive = "receive";
inline constexpr std::string_view kOperationProcess = "process";
inline constexpr std::string_view kOperationSettle = "settle";
// kMessagingOperationName of a settle: stored (ack), offered again (nack), dead-lettered (reject).
inline constexpr std::string_view kSettleAck = "ack";
inline constexpr std::string_view kSettleNack = "nack";
inline constexpr std::string_view kSettleReject = "reject";
// kExactlyOnceDecision.
inline constexpr std::string_view kDecisionFired = "fired";
inline constexpr std::string_view kDecisionSkippedHere = "skipped: already fired here";
inline constexpr std::string_view kDecisionSkippedElsewhere = "skipped: fired in another service";
// The event a failure adds (with kExceptionType / kExceptionMessage).
inline constexpr std::string_view kExceptionEvent = "exception";
}  // namespace span_values

namespace metric_names {
inline constexpr std::string_view kTracingMeter = "Whizbang.Tracing";
// One per received envelope whose last non-empty `tp` was not a valid W3C traceparent: ignored
// (the handling starts a new trace), never a failure.
inline constexpr std::string_view kTraceParentInvalid = "whizbang.tracing.trace_parent_invalid";
}  // namespace metric_names

}  // namespace whizbang
