// Dispatcher: emission identity, the envelopes of root and cascaded messages, and the context
// a receptor sees.
#include "dispatcher_internal.hpp"

#include "whizbang/ids/derived_identity.hpp"
#include "whizbang/security/security_context.hpp"

namespace whizbang {

namespace dispatch_internal {

MessageContext make_context(const MessageId& id, std::optional<MessageId> correlation,
                            std::optional<MessageId> causation, const SecurityScope* scope) {
  MessageContext context;
  context.message_id = id;
  context.correlation_id = correlation;
  context.causation_id = causation;
  // One copy at most: the ambient context when it says something (an explicit as_system() or
  // run_as() wins over the scope), else the scope the message carries.
  const SecurityContext* ambient = SecurityContext::current();
  if (ambient != nullptr && ambient->type != SecurityContextType::User) {
    context.security = *ambient;
  } else if (scope != nullptr) {
    static_cast<SecurityScope&>(context.security) = *scope;
  }
  return context;
}

MessageContext context_of(const Envelope& envelope) {
  const MessageHop* scoped = envelope.current_scope_hop();
  return make_context(envelope.emission_anchor.value_or(envelope.message_id),
                      envelope.correlation_id(), envelope.causation_id(),
                      scoped != nullptr ? &*scoped->scope : nullptr);
}

MessageContext root_context(const MessageId& id) {
  // outgoing_scope(nullptr) is the ambient context's scope when it is not empty, and the
  // ambient context then wins anyway: the root's context is the ambient one, or none.
  const SecurityContext* ambient = SecurityContext::current();
  const SecurityScope* scope = ambient != nullptr && !ambient->empty() ? ambient : nullptr;
  return make_context(id, id, std::nullopt, scope);
}

std::optional<SecurityScope> outgoing_scope(const Envelope* source) {
  if (const SecurityContext* ambient = SecurityContext::current(); ambient && !ambient->empty()) {
    return ambient->scope();
  }
  if (source != nullptr) return source->current_scope();
  return std::nullopt;
}

}  // namespace dispatch_internal

using dispatch_internal::outgoing_scope;

Envelope Dispatcher::root_envelope(const AnyMessage& message, const MessageId* id) const {
  Envelope envelope = Envelope::create(message, options_.self);
  if (id != nullptr) envelope.message_id = *id;
  MessageHop& hop = envelope.hops.front();
  if (const MessageContext* parent = MessageContext::current()) {
    // Dispatched from inside a handler: same conversation, caused by the handled message.
    hop.correlation_id = parent->correlation_id.value_or(parent->message_id);
    hop.causation_id = parent->message_id;
  } else {
    hop.correlation_id = MessageId::mint();
    hop.causation_id = MessageId::mint();
  }
  hop.scope = outgoing_scope(nullptr);
  hop.stream_id = envelope.message_id.uuid();
  envelope.dispatch_context = {DispatchModes::Local, MessageSource::Local, false, {}};
  return envelope;
}

Envelope Dispatcher::child_envelope(const AnyMessage& message, const MessageId& id,
                                    const EmissionSource* source) const {
  Envelope envelope;
  envelope.message_id = id;
  envelope.payload = message;
  envelope.emission_anchor = id;
  MessageHop hop;
  hop.service_instance = options_.self;
  hop.timestamp = Clock::now();
  const Envelope* parent = source ? source->envelope : nullptr;
  if (parent != nullptr) {
    hop.correlation_id = parent->correlation_id().value_or(parent->message_id);
    hop.causation_id = source->derive_from.is_nil() ? parent->message_id : source->derive_from;
    if (parent->payload) hop.causation_type = std::string(parent->payload.info()->wire_name);
    // Events caused by one handling share the source's stream.
    hop.stream_id = parent->stream_id();
    if (!hop.stream_id) {
      hop.stream_id = parent->message_id.is_nil() ? id.uuid() : parent->message_id.uuid();
    }
  } else {
    hop.correlation_id = id;  // a root message starts its own conversation
    hop.stream_id = id.uuid();
  }
  hop.scope = outgoing_scope(parent);
  envelope.hops.push_back(std::move(hop));
  envelope.dispatch_context = {DispatchModes::Local, MessageSource::Local, true, {}};
  return envelope;
}

MessageId Dispatcher::emission_id(const MessageTypeInfo& type, const EmissionSource* source,
                                  std::int64_t* ordinal_out) {
  if (source == nullptr || source->derive_from.is_nil()) return MessageId::mint();
  const std::int64_t ordinal = source->sequence->next();
  if (ordinal_out != nullptr) *ordinal_out = ordinal;
  absl::StatusOr<MessageId> id =
      EmissionIdentity::derive(source->derive_from.uuid(), options_.self.service_name,
                               source->handler, type.wire_name, ordinal);
  if (!id.ok()) return MessageId::mint();  // unreachable: non-nil source, ordinal >= 0
  log(options_.logger, spdlog::level::debug, log_events::kEmissionIdDerived,
      "[CASCADE] Emission id derived from source {} ordinal {}: {}", source->derive_from, ordinal,
      *id);
  return *id;
}

}  // namespace whizbang
