// Logging: spdlog, with the spec's numbered EventIds in every line.
//
// Components take a `std::shared_ptr<spdlog::logger>`; a null logger means "quiet" (every
// component works without one). Each line starts with "[EventId N Name]" so log filters written
// for the reference implementation's EventIds keep working.
//
//   whizbang::log(logger, spdlog::level::warn, whizbang::log_events::kReceptorAlreadyFiredSkip,
//                 "receptor {} already fired for {}", receptor_id, message_id);
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "spdlog/spdlog.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/observability/printable.hpp"

#include "absl/strings/string_view.h"

#ifndef ABSL_USES_STD_STRING_VIEW
// Debian's Abseil has its own string_view (Status::message() returns one): format it as text.
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<std::string_view> {
  auto format(absl::string_view text, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(text.data(), text.size()),
                                                    ctx);
  }
};
#endif

// Ids format as their hyphenated text in log lines and fmt::format.
template <>
struct fmt::formatter<whizbang::Uuid> : fmt::formatter<std::string_view> {
  auto format(const whizbang::Uuid& id, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(id.to_string(), ctx);
  }
};
template <>
struct fmt::formatter<whizbang::MessageId> : fmt::formatter<std::string_view> {
  auto format(const whizbang::MessageId& id, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(id.to_string(), ctx);
  }
};

namespace whizbang::internal {
// Text in a log line, written through printable() (printable.hpp).
struct LogText {
  std::string_view text;
};

}  // namespace whizbang::internal

template <>
struct fmt::formatter<whizbang::internal::LogText> : fmt::formatter<std::string_view> {
  auto format(const whizbang::internal::LogText& value, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(whizbang::printable(value.text), ctx);
  }
};

namespace whizbang {

struct LogEvent {
  int id;
  std::string_view name;
};

namespace log_events {
// Receptor firing (docs/guide/04-exactly-once.md).
inline constexpr LogEvent kReceptorFiring{16, "ReceptorFiring"};
inline constexpr LogEvent kReceptorFired{17, "ReceptorFired"};
inline constexpr LogEvent kReceptorAlreadyFiredSkip{18, "ReceptorAlreadyFiredSkip"};
// Invoker stage filters (docs/guide/02-attributes-and-stages.md).
inline constexpr LogEvent kSameServiceInboxSkip{10, "SameServiceInboxSkip"};
inline constexpr LogEvent kOwnedDomainSkip{11, "OwnedDomainSkip"};
inline constexpr LogEvent kLocalDispatchFlagSkip{12, "LocalDispatchFlagSkip"};
inline constexpr LogEvent kStageAlreadyClaimed{13, "StageAlreadyClaimed"};
inline constexpr LogEvent kReplaySkip{14, "ReplaySkip"};
inline constexpr LogEvent kNoReceptorsAtStage{15, "NoReceptorsAtStage"};
// Outbox drain worker: the source service id stamped on published envelopes.
inline constexpr LogEvent kSourceServiceIdEmptyAtStartup{50, "SourceServiceIdEmptyAtStartup"};
inline constexpr LogEvent kSourceServiceIdResolved{51, "SourceServiceIdResolved"};
inline constexpr LogEvent kSourceServiceIdRetry{52, "SourceServiceIdRetry"};
// The start-up lookup of the local service id threw (the reference's existing start-up warning).
inline constexpr LogEvent kSourceServiceIdLookupFailedAtStartup{
    53, "SourceServiceIdLookupFailedAtStartup"};
// A worker cycle failed as a whole (store unavailable); the next cycle retries. Repeats of one
// message are rate-limited (WorkerLoop): at most one line per 10 s, counting those held back.
inline constexpr LogEvent kWorkerCycleFailed{54, "WorkerCycleFailed"};
// Cascade and store (no EventId in the reference; numbered here, outside the reference's ranges).
inline constexpr LogEvent kEmissionIdDerived{100, "EmissionIdDerived"};
inline constexpr LogEvent kCascadeNonMessageIgnored{101, "CascadeNonMessageIgnored"};
inline constexpr LogEvent kCascadeNothingExtracted{102, "CascadeNothingExtracted"};
inline constexpr LogEvent kOutboxRowDropped{103, "OutboxRowDropped"};
inline constexpr LogEvent kOwnedCommandWithoutReceptor{104, "OwnedCommandWithoutReceptor"};
inline constexpr LogEvent kOutboxEmissionDeduplicated{110, "OutboxEmissionDeduplicated"};
inline constexpr LogEvent kStoredRowQuarantined{111, "StoredRowQuarantined"};
// Delivered messages the inbox had received before (a redelivery): dropped, counted.
inline constexpr LogEvent kInboxDuplicateDropped{112, "InboxDuplicateDropped"};
// A delivered batch the store did not take as a whole: stored message by message instead.
inline constexpr LogEvent kInboxDeliveryStoreFailed{113, "InboxDeliveryStoreFailed"};
// A handling failed on a transient database error: handled again, no attempt counted.
inline constexpr LogEvent kInboxHandlingRetried{114, "InboxHandlingRetried"};
// Perspectives (read models).
inline constexpr LogEvent kPerspectiveAlreadyApplied{120, "PerspectiveAlreadyApplied"};
inline constexpr LogEvent kPerspectiveApplyFailed{121, "PerspectiveApplyFailed"};
inline constexpr LogEvent kPerspectiveEventQuarantined{122, "PerspectiveEventQuarantined"};
// An event reached a perspective behind an event of its stream it applied already (it occurred
// earlier; appended late): the stream's model was re-applied in order (docs/perspectives.md).
inline constexpr LogEvent kPerspectiveRewound{126, "PerspectiveRewound"};
// A rebuild finished, or failed with the error kept on its row (docs/guide/07-perspectives.md).
inline constexpr LogEvent kPerspectiveRebuilt{127, "PerspectiveRebuilt"};
inline constexpr LogEvent kPerspectiveRebuildFailed{128, "PerspectiveRebuildFailed"};
// Explicit security (as_system / run_as).
inline constexpr LogEvent kEmptyGuidActualPrincipal{130, "EmptyGuidActualPrincipal"};
// Failures and recovery (docs/guide/11-failures.md).
// Work on a ThreadPoolExecutor threw past every other boundary; the pool thread goes on.
inline constexpr LogEvent kExecutorWorkFailed{140, "ExecutorWorkFailed"};
// A row was dead-lettered (max attempts, or a permanent failure): kept, never retried.
inline constexpr LogEvent kMessageDeadLettered{141, "MessageDeadLettered"};
// A worker's lease on a row lapsed and another instance claimed it: the handling rolled back.
inline constexpr LogEvent kLeaseLost{142, "LeaseLost"};
// A purge removed duplicate-guarding bookkeeping past its retention.
inline constexpr LogEvent kRetentionPurged{143, "RetentionPurged"};
// A worker's cycle succeeded after failed ones (EventId 54, rate-limited while they repeat): how
// many failed, for how long, and how many of their lines were held back.
inline constexpr LogEvent kWorkerCycleRecovered{144, "WorkerCycleRecovered"};
// Circuit breakers (docs/guide/11-failures.md, "Circuit breakers"): a receptor's or a
// destination's breaker opened after its failures (its work waits, no attempts counted; Warning),
// went half-open for one trial, or closed after the trial succeeded (Information).
inline constexpr LogEvent kCircuitBreakerOpened{145, "CircuitBreakerOpened"};
inline constexpr LogEvent kCircuitBreakerHalfOpen{146, "CircuitBreakerHalfOpen"};
inline constexpr LogEvent kCircuitBreakerClosed{147, "CircuitBreakerClosed"};
// Transports (docs/guide/13-rabbitmq.md).
// A broker connection failed or was closed; the transport reconnects with backoff.
inline constexpr LogEvent kTransportConnectionLost{150, "TransportConnectionLost"};
// A broker connection is up again; topology redeclared and consumers resumed.
inline constexpr LogEvent kTransportConnected{151, "TransportConnected"};
// A delivery that cannot become a message (no id, no type) went to the queue's dead letters.
inline constexpr LogEvent kTransportDeliveryRejected{152, "TransportDeliveryRejected"};
// A subscription's handler failed; its deliveries go back to the queue for redelivery.
inline constexpr LogEvent kTransportDeliveryRequeued{153, "TransportDeliveryRequeued"};
// The broker returned a published event: no queue is bound for it, so it was dropped.
inline constexpr LogEvent kTransportEventUnrouted{154, "TransportEventUnrouted"};
// The runner's operator API (docs/guide/19-operating-services.md): one audit line per POST,
// naming the action, the selector, the count and the client. (150-154 were taken: 155-157.)
inline constexpr LogEvent kDeadLettersRequeued{155, "DeadLettersRequeued"};
inline constexpr LogEvent kDeadLettersDiscarded{156, "DeadLettersDiscarded"};
// A POST refused: no token configured (read-only), or a missing or wrong token.
inline constexpr LogEvent kOperatorRequestRefused{157, "OperatorRequestRefused"};
// Trust boundary (docs/guide/16-security.md).
// A delivered message failed the inbox's door (docs/guide/16-security.md): its text, id, type,
// envelope or signature. Refused with the reason to the transport's dead letters (or kept once
// as a dead letter in the store), never handled; also a stored row that fails the signature
// check when claimed.
inline constexpr LogEvent kEnvelopeRefused{160, "EnvelopeRefused"};
// A received envelope's scope was set by a service the receiver does not trust to set one: the
// message is handled with no scope.
inline constexpr LogEvent kUntrustedScopeDropped{161, "UntrustedScopeDropped"};
}  // namespace log_events

namespace internal {

template <class T>
decltype(auto) loggable(T&& value) {
  using Plain = std::remove_cvref_t<T>;
  if constexpr (std::is_convertible_v<const Plain&, std::string_view>) {
    return LogText{std::string_view(value)};
  } else if constexpr (std::is_same_v<Plain, absl::string_view>) {
    return LogText{std::string_view(value.data(), value.size())};
  } else {
    return std::forward<T>(value);
  }
}

}  // namespace internal

// Every string argument is escaped (internal::LogText); the format string itself is trusted.
template <class... Args>
void log(const std::shared_ptr<spdlog::logger>& logger, spdlog::level::level_enum level,
         LogEvent event, fmt::format_string<Args...> format, Args&&... args) {
  if (!logger || !logger->should_log(level)) return;
  // The format was checked against Args at compile time; the escaped arguments format alike.
  logger->log(level, "[EventId {} {}] {}", event.id, event.name,
              fmt::format(fmt::runtime(static_cast<fmt::string_view>(format)),
                          internal::loggable(std::forward<Args>(args))...));
}

}  // namespace whizbang
