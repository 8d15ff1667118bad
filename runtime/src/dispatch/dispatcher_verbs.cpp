// Dispatcher: the public verbs (local_invoke, send, publish, publish_at) on type-erased messages.
#include "dispatcher_internal.hpp"

#include <array>

#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/security/security_context.hpp"

namespace whizbang {

using dispatch_internal::DiscardingSink;

absl::StatusOr<Dispatcher::InvokeOutcome> Dispatcher::invoke_any(const AnyMessage& message,
                                                                 bool want_response) {
  return unit_of_work<InvokeOutcome>([&] { return invoke_any_now(message, want_response); });
}

absl::StatusOr<DeliveryReceipt> Dispatcher::send_any(const AnyMessage& message) {
  return unit_of_work<DeliveryReceipt>([&] { return send_any_now(message); });
}

absl::StatusOr<DeliveryReceipt> Dispatcher::publish_any(const AnyMessage& message,
                                                        DispatchModes mode) {
  // Outside any transaction a deferring publish opens none: its rows (and those its local
  // receptors' cascades write) queue on the deferred channel.
  if (defers_outside_transaction()) return publish_any_now(message, mode);
  return unit_of_work<DeliveryReceipt>([&] { return publish_any_now(message, mode); });
}

absl::StatusOr<DeliveryReceipt> Dispatcher::publish_at_any(const AnyMessage& message,
                                                           DispatchModes mode,
                                                           TimePoint deliver_at) {
  if (!message) return absl::InvalidArgumentError("cannot publish an empty AnyMessage");
  const MessageTypeInfo& type = *message.info();
  const bool to_outbox = has_flag(mode, DispatchModes::Outbox);
  const bool to_event_store =
      type.kind == MessageKind::Event && has_flag(mode, DispatchModes::EventStore);
  if (!to_outbox && !to_event_store) {
    return absl::InvalidArgumentError(
        fmt::format("publish_at({}): a scheduled message needs a route to the outbox or the "
                    "event store; this one would only run locally, and nothing runs locally "
                    "for a scheduled publish",
                    type.wire_name));
  }
  if (options_.store == nullptr && !options_.defer) {
    return absl::FailedPreconditionError(
        fmt::format("publish_at({}): service '{}' has no store to keep the message until it is due",
                    type.wire_name, service_name()));
  }
  return unit_of_work<DeliveryReceipt>([&]() -> absl::StatusOr<DeliveryReceipt> {
    const MessageId id = MessageId::mint();
    Envelope envelope = child_envelope(message, id, nullptr);
    Span span = trace_dispatch(envelope, mode, nullptr, -1);
    std::optional<std::string> destination;
    if (to_outbox) destination = destination_for(type).str();
    if (absl::Status status = write_outbox(envelope, destination, deliver_at, &span);
        !status.ok()) {
      mark_failed(span, status);
      return status;
    }
    return DeliveryReceipt::queued(id, destination.value_or(""), envelope.stream_id());
  });
}

absl::StatusOr<Dispatcher::InvokeOutcome> Dispatcher::invoke_any_now(const AnyMessage& message,
                                                                     bool want_response,
                                                                     const MessageId* root_id) {
  if (!message) return absl::InvalidArgumentError("cannot invoke an empty AnyMessage");
  const Entry* entry = entry_for(*message.info());
  const ReceptorInfo* receptor = nullptr;
  if (entry != nullptr) {
    receptor = want_response ? entry->first_with_result
                             : (entry->first_void ? entry->first_void : entry->first_with_result);
  }
  if (receptor == nullptr) {
    return absl::NotFoundError(fmt::format("no {}receptor for {} in service '{}'",
                                           want_response ? "value-returning " : "",
                                           message.info()->wire_name, service_name()));
  }
  return invoke_receptor(*receptor, message, want_response, root_id);
}

absl::StatusOr<Dispatcher::InvokeOutcome> Dispatcher::invoke_receptor(const ReceptorInfo& receptor,
                                                                      const AnyMessage& message,
                                                                      bool want_response,
                                                                      const MessageId* root_id) {
  Envelope envelope = root_envelope(message, root_id);
  Span dispatch_span = trace_dispatch(envelope, DispatchModes::Local, nullptr, -1);
  TraceScope dispatch_trace(dispatch_span.context());
  Span span =
      start_receptor_span(tracer(), receptor, envelope.message_id, Stage::LocalImmediateInline);
  TraceScope trace(span.context());
  InvokeOutcome outcome;
  outcome.receptor = &receptor;
  outcome.message_id = envelope.message_id;
  outcome.correlation_id = envelope.correlation_id();
  outcome.causation_id = envelope.causation_id();
  // The handling is named after the receptor (its handler name feeds derived ids).
  EmissionSequence sequence;
  if (absl::Status status =
          run_and_cascade(receptor, EmissionSource::of(envelope, receptor.id, sequence),
                          want_response ? &outcome.response : nullptr);
      !status.ok()) {
    mark_failed(span, status);
    mark_failed(dispatch_span, status);
    return status;
  }
  return outcome;
}

absl::StatusOr<DeliveryReceipt> Dispatcher::send_any_now(const AnyMessage& message,
                                                         const MessageId* root_id) {
  if (!message) return absl::InvalidArgumentError("cannot send an empty AnyMessage");
  const Entry* entry = entry_for(*message.info());
  if (entry != nullptr && !entry->all.empty()) {
    absl::StatusOr<InvokeOutcome> outcome =
        invoke_any_now(message, /*want_response=*/false, root_id);
    if (!outcome.ok()) return outcome.status();
    return DeliveryReceipt::delivered(outcome->message_id,
                                      StaticOrOwnedString::borrow(outcome->receptor->id),
                                      outcome->correlation_id, outcome->causation_id);
  }
  if (is_owned(*message.info(), options_.owned_domains)) {
    // The outbox would route it back to this service, which has no receptor for it.
    const MessageId id = root_id != nullptr ? *root_id : MessageId::mint();
    log(options_.logger, spdlog::level::warn, log_events::kOwnedCommandWithoutReceptor,
        "{} ({}) belongs to an owned domain of service '{}', which has no receptor for it; "
        "accepted, not queued",
        message.info()->wire_name, id, service_name());
    return DeliveryReceipt::accepted(id, destination_for(*message.info()));
  }
  if (options_.store == nullptr && !options_.defer) {
    return absl::NotFoundError(
        fmt::format("no receptor for {} in service '{}' and no outbox to send it through",
                    message.info()->wire_name, service_name()));
  }
  Envelope envelope = root_envelope(message, root_id);
  Span span = trace_dispatch(envelope, DispatchModes::Outbox, nullptr, -1);
  StaticOrOwnedString destination = destination_for(*message.info());
  if (absl::Status status = write_outbox(envelope, destination.str(), std::nullopt, &span);
      !status.ok()) {
    mark_failed(span, status);
    return status;
  }
  return DeliveryReceipt::accepted(envelope.message_id, std::move(destination),
                                   envelope.correlation_id(), envelope.causation_id(),
                                   envelope.stream_id());
}

absl::StatusOr<DeliveryReceipt> Dispatcher::publish_any_now(const AnyMessage& message,
                                                            DispatchModes mode,
                                                            const MessageId* root_id) {
  if (!message) return absl::InvalidArgumentError("cannot publish an empty AnyMessage");
  if (mode == DispatchModes::LocalNoPersist) {
    const Entry* entry = entry_for(*message.info());
    if (entry != nullptr && entry->default_stage_all_void) {
      return publish_to_void_receptors(message, *entry, root_id);
    }
  }
  const absl::StatusOr<CascadeRecord> record = cascade(message, nullptr, mode, root_id);
  if (!record.ok()) return record.status();
  return DeliveryReceipt::delivered(record->id, destination_for(*message.info()), std::nullopt,
                                    std::nullopt, record->id.uuid());
}

namespace dispatch_internal {

// The contexts of root publishes to void receptors on this thread, one per nesting depth (a
// receptor that publishes again takes the next), built once and reused: a MessageContext holds a
// whole SecurityContext (strings, vectors, a map), which costs more to build and destroy than
// the rest of such a publish. A slot's security is never written, so it stays empty.
struct RootContextSlots {
  static constexpr std::size_t kDepth = 4;
  std::array<MessageContext, kDepth> contexts;
  std::size_t used = 0;
};

// The context of one root publish: a slot when no ambient security context says anything (the
// usual case) and one is free, else one of its own (root_context).
class RootContextLease {
 public:
  explicit RootContextLease(const MessageId& id) {
    const SecurityContext* ambient = SecurityContext::current();
    RootContextSlots& slots = this_threads_slots();
    if ((ambient == nullptr || ambient->empty()) && slots.used < RootContextSlots::kDepth)
        [[likely]] {
      MessageContext& context = slots.contexts[slots.used++];
      context.message_id = id;
      context.correlation_id = id;  // a root message starts its own conversation
      context.causation_id.reset();
      context_ = &context;
      slots_ = &slots;
    } else {
      own_.emplace(root_context(id));
      context_ = &*own_;
    }
  }
  ~RootContextLease() {
    if (slots_ != nullptr) --slots_->used;
  }
  RootContextLease(const RootContextLease&) = delete;
  RootContextLease& operator=(const RootContextLease&) = delete;

  const MessageContext& context() const { return *context_; }
  // A slot's security is empty.
  bool security_empty() const { return slots_ != nullptr; }

 private:
  static RootContextSlots& this_threads_slots() {
    thread_local RootContextSlots slots;
    return slots;
  }

  const MessageContext* context_ = nullptr;
  RootContextSlots* slots_ = nullptr;
  std::optional<MessageContext> own_;
};

}  // namespace dispatch_internal

// The same context, receipt and order as cascade() would give, without building the envelope
// that only stored rows, records and cascades need.
absl::StatusOr<DeliveryReceipt> Dispatcher::publish_to_void_receptors(const AnyMessage& message,
                                                                      const Entry& entry,
                                                                      const MessageId* root_id) {
  const MessageId id = root_id != nullptr ? *root_id : MessageId::mint();
  const dispatch_internal::RootContextLease lease(id);
  // Every path returns `receipt`, so it is built in the caller's slot: no receipt is moved.
  absl::StatusOr<DeliveryReceipt> receipt(absl::in_place);
  if (options_.tracer) [[unlikely]] {
    receipt = publish_to_void_receptors_traced(message, entry, id, lease.context());
    return receipt;
  }
  DiscardingSink sink;
  for (const ReceptorInfo* receptor : entry.default_stage) {
    const ScopedMessageContext scope =
        lease.security_empty()
            ? ScopedMessageContext(lease.context(), ScopedMessageContext::EmptySecurity{})
            : ScopedMessageContext(lease.context());
    if (absl::Status status = invoke_contained(*receptor, message, sink, nullptr); !status.ok())
        [[unlikely]] {
      receipt = std::move(status);
      return receipt;
    }
  }
  receipt->message_id = id;
  receipt->status = DeliveryStatus::Delivered;
  if (entry.cached_destination) {
    receipt->destination = StaticOrOwnedString::Borrowed{*entry.cached_destination};
  } else {
    receipt->destination = options_.destination(*message.info());
  }
  receipt->stream_id = id.uuid();
  return receipt;
}

}  // namespace whizbang
