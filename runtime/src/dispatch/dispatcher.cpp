// The dispatcher's type-erased core: receptor lookup, invocation, cascade and outbox writes.
#include "whizbang/dispatch/dispatcher.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <utility>

#include "internal/fast_clock.hpp"
#include "whizbang/failure.hpp"
#include "whizbang/ids/derived_identity.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/security/security_context.hpp"

namespace whizbang {

// The receptors of one message type, pre-sorted by how the dispatcher uses them.
struct Dispatcher::Entry {
  static constexpr std::size_t kFiringStages = kStageNames.size() - 1;  // all but the tag hook

  std::vector<const ReceptorInfo*> all;                                  // declaration order
  std::array<std::vector<const ReceptorInfo*>, kFiringStages> at_stage;  // by Stage value
  std::vector<const ReceptorInfo*> default_stage;  // run by cascades and publishes (no fire_at)
  const ReceptorInfo* first_with_result = nullptr;
  const ReceptorInfo* first_void = nullptr;
  bool default_stage_all_void = true;  // nothing a publish runs can cascade
  // The default resolver's answer, computed once (a custom resolver is asked every time).
  std::optional<std::string> cached_destination;
};

// The handling a cascaded message comes from: what its id derives from and what it inherits.
struct Dispatcher::EmissionSource {
  const Envelope* envelope = nullptr;
  MessageId derive_from;  // the anchor, else the envelope's id; nil: mint fresh ids
  std::string_view handler;
  EmissionSequence* sequence = nullptr;

  static EmissionSource of(const Envelope& envelope) {
    return of(envelope, envelope.dispatch_context.handler_name, envelope.emission_sequence());
  }
  // A handling of `envelope` by `handler` with its own ordinals: no envelope copy needed.
  static EmissionSource of(const Envelope& envelope, std::string_view handler,
                           EmissionSequence& sequence) {
    return {&envelope, envelope.emission_anchor.value_or(envelope.message_id), handler, &sequence};
  }
};

namespace {

// Collects what a receptor's result cascades, so each message is dispatched after `handle`
// returned and errors can propagate.
class CollectingSink final : public CascadeSink {
 public:
  explicit CollectingSink(const std::shared_ptr<spdlog::logger>& logger) : logger_(logger) {}

  void emit(AnyMessage message, DispatchModes mode) override {
    emitted.emplace_back(std::move(message), mode);
  }
  void ignored(std::string_view type_name) override {
    log(logger_, spdlog::level::debug, log_events::kCascadeNonMessageIgnored,
        "[CASCADE] {} in a receptor result is not a message; not cascaded", type_name);
  }

  std::vector<std::pair<AnyMessage, DispatchModes>> emitted;

 private:
  const std::shared_ptr<spdlog::logger>& logger_;
};

// What a receptor sees of the message it handles.
MessageContext make_context(const MessageId& id, std::optional<MessageId> correlation,
                            std::optional<MessageId> causation,
                            const std::optional<SecurityScope>& scope) {
  MessageContext context;
  context.message_id = id;
  context.correlation_id = correlation;
  context.causation_id = causation;
  if (scope) context.security = SecurityContext::from_scope(*scope);
  // An explicit as_system()/run_as() around the dispatch wins over the envelope's scope.
  if (const SecurityContext* ambient = SecurityContext::current();
      ambient != nullptr && ambient->type != SecurityContextType::User) {
    context.security = *ambient;
  }
  return context;
}

MessageContext context_of(const Envelope& envelope) {
  return make_context(envelope.emission_anchor.value_or(envelope.message_id),
                      envelope.correlation_id(), envelope.causation_id(), envelope.current_scope());
}

std::optional<SecurityScope> outgoing_scope(const Envelope* source) {
  if (const SecurityContext* ambient = SecurityContext::current(); ambient && !ambient->empty()) {
    return ambient->scope();
  }
  if (source != nullptr) return source->current_scope();
  return std::nullopt;
}

// For receptors that return nothing: there is nothing to collect.
class DiscardingSink final : public CascadeSink {
 public:
  void emit(AnyMessage, DispatchModes) override {}
};

}  // namespace

absl::StatusOr<std::unique_ptr<Dispatcher>> Dispatcher::create(const Registry& registry,
                                                               const ServiceRegistry& services,
                                                               DispatcherOptions options) {
  absl::StatusOr<ReceptorSet> receptors = registry.create_receptors(services);
  if (!receptors.ok()) return receptors.status();
  return std::unique_ptr<Dispatcher>(
      new Dispatcher(registry, *std::move(receptors), std::move(options)));
}

Dispatcher::Dispatcher(const Registry& registry, ReceptorSet receptors, DispatcherOptions options)
    : registry_(registry), receptors_(std::move(receptors)), options_(std::move(options)) {
  if (!options_.serialize) {
    options_.serialize = [](const Envelope& envelope) { return serialize_envelope(envelope); };
  }
  using ResolverFunction = std::string (*)(const MessageTypeInfo&);
  const ResolverFunction* resolver = options_.destination.target<ResolverFunction>();
  const bool uses_default_destination = resolver != nullptr && *resolver == &default_destination;
  for (const MessageEntry& message : registry_.messages()) {
    auto entry = std::make_unique<Entry>();
    for (const ReceptorInfo& receptor :
         registry_.receptors().subspan(message.first_receptor, message.receptor_count)) {
      entry->all.push_back(&receptor);
      for (const Stage stage : receptor.stages) {
        const auto index = static_cast<std::size_t>(stage);
        if (stage != Stage::AfterReceptorCompletion && index < Entry::kFiringStages) {
          entry->at_stage[index].push_back(&receptor);
        }
      }
      if (receptor.default_stages) {
        entry->default_stage.push_back(&receptor);
        entry->default_stage_all_void &= receptor.response_key == nullptr;
      }
      const bool has_result = receptor.response_key != nullptr;
      if (has_result && entry->first_with_result == nullptr) entry->first_with_result = &receptor;
      if (!has_result && entry->first_void == nullptr) entry->first_void = &receptor;
    }
    if (uses_default_destination) entry->cached_destination = default_destination(*message.info);
    entries_.emplace_back(message.info, std::move(entry));
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const auto& a, const auto& b) { return std::less<>()(a.first, b.first); });
}

Dispatcher::~Dispatcher() = default;

const Dispatcher::Entry* Dispatcher::entry_for(const MessageTypeInfo& type) const {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), &type,
                                   [](const auto& entry, const MessageTypeInfo* wanted) {
                                     return std::less<>()(entry.first, wanted);
                                   });
  return it == entries_.end() || it->first != &type ? nullptr : it->second.get();
}

std::string Dispatcher::destination_for(const MessageTypeInfo& type) const {
  if (const Entry* entry = entry_for(type); entry != nullptr && entry->cached_destination) {
    return *entry->cached_destination;
  }
  return options_.destination(type);
}

std::span<const ReceptorInfo* const> Dispatcher::receptors_at(const MessageTypeInfo& type,
                                                              Stage stage) const {
  const Entry* entry = entry_for(type);
  const auto index = static_cast<std::size_t>(stage);
  if (entry == nullptr || stage == Stage::AfterReceptorCompletion ||
      index >= Entry::kFiringStages) {
    return {};
  }
  return entry->at_stage[index];
}

absl::Status Dispatcher::run_receptor(const ReceptorInfo& receptor, const Envelope& handling) {
  return run_and_cascade(receptor, EmissionSource::of(handling), nullptr);
}

absl::Status Dispatcher::run_receptor(const ReceptorInfo& receptor, const Envelope& envelope,
                                      std::string_view handler) {
  EmissionSequence sequence;
  return run_and_cascade(receptor, EmissionSource::of(envelope, handler, sequence), nullptr);
}

Envelope Dispatcher::root_envelope(const AnyMessage& message) const {
  Envelope envelope = Envelope::create(message, options_.self);
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

MessageId Dispatcher::emission_id(const MessageTypeInfo& type, const EmissionSource* source) {
  if (source == nullptr || source->derive_from.is_nil()) return MessageId::mint();
  const std::int64_t ordinal = source->sequence->next();
  absl::StatusOr<MessageId> id =
      EmissionIdentity::derive(source->derive_from.uuid(), options_.self.service_name,
                               source->handler, type.wire_name, ordinal);
  if (!id.ok()) return MessageId::mint();  // unreachable: non-nil source, ordinal >= 0
  log(options_.logger, spdlog::level::debug, log_events::kEmissionIdDerived,
      "[CASCADE] Emission id derived from source {} ordinal {}: {}", source->derive_from, ordinal,
      *id);
  return *id;
}

absl::Status Dispatcher::invoke_contained(const ReceptorInfo& receptor, const AnyMessage& message,
                                          CascadeSink& sink, std::shared_ptr<void>* response) {
  // Receptors fail by throwing: the exception stops here, as a status naming the receptor, so
  // that no caller (application thread, worker, executor) ever sees it unwind.
  try {
    return registry_.invoke(receptor, receptors_, message, sink, response);
  } catch (...) {
    return status_from_current_exception(fmt::format("receptor {}", receptor.id));
  }
}

absl::Status Dispatcher::run_and_cascade(const ReceptorInfo& receptor, const EmissionSource& source,
                                         std::shared_ptr<void>* response) {
  const Envelope& envelope = *source.envelope;
  CollectingSink sink(options_.logger);
  {
    const MessageContext context = context_of(envelope);
    ScopedMessageContext scope(context);
    absl::Status status = invoke_contained(receptor, envelope.payload, sink, response);
    if (!status.ok()) return status;
  }
  if (sink.emitted.empty() && receptor.response_key != nullptr) {
    log(options_.logger, spdlog::level::debug, log_events::kCascadeNothingExtracted,
        "[CASCADE] {} returned no messages to cascade", receptor.id);
  }
  for (auto& [message, mode] : sink.emitted) {
    absl::StatusOr<CascadeRecord> record = cascade(message, &source, mode);
    if (!record.ok()) return record.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<CascadeRecord> Dispatcher::cascade(const AnyMessage& message,
                                                  const EmissionSource* source,
                                                  DispatchModes mode) {
  if (!message) return absl::InvalidArgumentError("cannot cascade an empty AnyMessage");
  if (mode == DispatchModes::None) return CascadeRecord{message, MessageId(), mode};
  const MessageTypeInfo& type = *message.info();
  if (mode == DispatchModes::Outbox && type.kind == MessageKind::Command &&
      is_owned(type, options_.owned_domains)) {
    mode = DispatchModes::Local;  // this service owns the command: handle it here
  }
  const MessageId id = emission_id(type, source);
  Envelope envelope = child_envelope(message, id, source);
  const bool stored =
      has_flag(mode, DispatchModes::Outbox) ||
      (type.kind == MessageKind::Event && has_flag(mode, DispatchModes::EventStore));
  if (has_flag(mode, DispatchModes::LocalDispatch)) {
    std::vector<ReceptorInvocationRecord> records;
    const bool record = stored && records_local_invocations();
    if (absl::Status status = publish_local(envelope, record ? &records : nullptr); !status.ok()) {
      return status;
    }
    for (ReceptorInvocationRecord& r : records) {
      if (absl::Status status = options_.dedup_store->record_invocation(envelope, r);
          !status.ok()) {
        return status;
      }
      envelope.receptor_invocations.push_back(std::move(r));
    }
  }
  const bool is_event = type.kind == MessageKind::Event;
  if (is_event && has_flag(mode, DispatchModes::EventStore) &&
      !has_flag(mode, DispatchModes::Outbox)) {
    if (absl::Status status = write_outbox(envelope, std::nullopt); !status.ok()) return status;
  }
  if (has_flag(mode, DispatchModes::Outbox)) {
    if (absl::Status status = write_outbox(envelope, destination_for(type)); !status.ok()) {
      return status;
    }
  }
  return CascadeRecord{message, id, mode};
}

absl::StatusOr<CascadeRecord> Dispatcher::cascade_message(const AnyMessage& message,
                                                          const Envelope* source,
                                                          DispatchModes mode) {
  return unit_of_work<CascadeRecord>([&]() -> absl::StatusOr<CascadeRecord> {
    if (source == nullptr) return cascade(message, nullptr, mode);
    const EmissionSource emission_source = EmissionSource::of(*source);
    return cascade(message, &emission_source, mode);
  });
}

bool Dispatcher::records_local_invocations() const {
  return options_.dedup_store != nullptr &&
         options_.guardrails.tracking != ReceptorInvocationTracking::Off;
}

absl::Status Dispatcher::publish_local(const Envelope& envelope,
                                       std::vector<ReceptorInvocationRecord>* records) {
  const Entry* entry = entry_for(*envelope.payload.info());
  if (entry == nullptr) return absl::OkStatus();
  for (const ReceptorInfo* receptor : entry->default_stage) {
    const TimePoint started = records != nullptr ? internal::FastClock::now() : TimePoint();
    // Each receptor is its own handling: its own handler name and emission sequence, so one
    // receptor's emissions never shift another's ordinals.
    if (absl::Status status = run_receptor(*receptor, envelope, receptor->id); !status.ok()) {
      return status;
    }
    if (records != nullptr) {
      const TimePoint completed = internal::FastClock::now();
      ReceptorInvocationRecord& record = records->emplace_back(
          StaticOrOwnedString::Borrowed{receptor->id}, Stage::LocalImmediateInline, completed,
          internal::FastClock::elapsed(started, completed));
      record.service_name = options_.self.service_name;
    }
  }
  return absl::OkStatus();
}

absl::Status Dispatcher::write_outbox(const Envelope& envelope,
                                      std::optional<std::string> destination,
                                      std::optional<TimePoint> scheduled_for) {
  OutboxMessage row;
  row.scheduled_for = scheduled_for;
  row.message_id = envelope.message_id;
  row.destination = std::move(destination);
  row.message_type = std::string(envelope.payload.info()->wire_name);
  row.stream_id = envelope.stream_id();
  row.is_event = envelope.payload.info()->kind == MessageKind::Event;
  row.scope = envelope.current_scope();
  Envelope stored = envelope;
  stored.dispatch_context.mode =
      row.destination ? DispatchModes::Outbox : DispatchModes::EventStore;
  stored.dispatch_context.source = MessageSource::Outbox;
  stored.dispatch_context.is_default_dispatch = false;
  stored.hops.back().topic = row.destination.value_or("(event-store)");
  if (options_.serialize) row.envelope_json = options_.serialize(stored);
  if (options_.store != nullptr && !defers_outside_transaction()) {
    absl::StatusOr<std::vector<StoredOutboxRow>> stored_rows =
        options_.store->store_outbox_messages({&row, 1});
    return stored_rows.status();
  }
  if (options_.defer) {
    options_.defer(std::move(row));
    return absl::OkStatus();
  }
  log(options_.logger, spdlog::level::warn, log_events::kOutboxRowDropped,
      "no store and no deferred channel: outbox row for {} ({}) dropped", row.message_type,
      row.message_id);
  return absl::OkStatus();
}

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
    const Envelope envelope = child_envelope(message, id, nullptr);
    std::optional<std::string> destination;
    if (to_outbox) destination = destination_for(type);
    if (absl::Status status = write_outbox(envelope, destination, deliver_at); !status.ok()) {
      return status;
    }
    return DeliveryReceipt{id,           DeliveryStatus::Queued, destination.value_or(""),
                           std::nullopt, std::nullopt,           envelope.stream_id()};
  });
}

bool Dispatcher::defers_outside_transaction() const {
  return options_.publish_outside_transaction == PublishOutsideTransaction::Defer &&
         options_.defer && options_.in_transaction && !options_.in_transaction();
}

absl::StatusOr<Dispatcher::InvokeOutcome> Dispatcher::invoke_any_now(const AnyMessage& message,
                                                                     bool want_response) {
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
  return invoke_receptor(*receptor, message, want_response);
}

absl::StatusOr<Dispatcher::InvokeOutcome> Dispatcher::invoke_receptor(const ReceptorInfo& receptor,
                                                                      const AnyMessage& message,
                                                                      bool want_response) {
  const Envelope envelope = root_envelope(message);
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
    return status;
  }
  return outcome;
}

absl::StatusOr<DeliveryReceipt> Dispatcher::send_any_now(const AnyMessage& message) {
  if (!message) return absl::InvalidArgumentError("cannot send an empty AnyMessage");
  const Entry* entry = entry_for(*message.info());
  if (entry != nullptr && !entry->all.empty()) {
    absl::StatusOr<InvokeOutcome> outcome = invoke_any_now(message, /*want_response=*/false);
    if (!outcome.ok()) return outcome.status();
    return DeliveryReceipt{
        outcome->message_id,     DeliveryStatus::Delivered, std::string(outcome->receptor->id),
        outcome->correlation_id, outcome->causation_id,     std::nullopt};
  }
  if (is_owned(*message.info(), options_.owned_domains)) {
    // The outbox would route it back to this service, which has no receptor for it.
    const MessageId id = MessageId::mint();
    log(options_.logger, spdlog::level::warn, log_events::kOwnedCommandWithoutReceptor,
        "{} ({}) belongs to an owned domain of service '{}', which has no receptor for it; "
        "accepted, not queued",
        message.info()->wire_name, id, service_name());
    return DeliveryReceipt{id,
                           DeliveryStatus::Accepted,
                           destination_for(*message.info()),
                           std::nullopt,
                           std::nullopt,
                           std::nullopt};
  }
  if (options_.store == nullptr && !options_.defer) {
    return absl::NotFoundError(
        fmt::format("no receptor for {} in service '{}' and no outbox to send it through",
                    message.info()->wire_name, service_name()));
  }
  const Envelope envelope = root_envelope(message);
  std::string destination = destination_for(*message.info());
  if (absl::Status status = write_outbox(envelope, destination); !status.ok()) return status;
  return DeliveryReceipt{envelope.message_id,     DeliveryStatus::Accepted,
                         std::move(destination),  envelope.correlation_id(),
                         envelope.causation_id(), envelope.stream_id()};
}

absl::StatusOr<DeliveryReceipt> Dispatcher::publish_any_now(const AnyMessage& message,
                                                            DispatchModes mode) {
  if (!message) return absl::InvalidArgumentError("cannot publish an empty AnyMessage");
  if (mode == DispatchModes::LocalNoPersist) {
    const Entry* entry = entry_for(*message.info());
    if (entry != nullptr && entry->default_stage_all_void) {
      return publish_to_void_receptors(message, *entry);
    }
  }
  const absl::StatusOr<CascadeRecord> record = cascade(message, nullptr, mode);
  if (!record.ok()) return record.status();
  return DeliveryReceipt{
      record->id,   DeliveryStatus::Delivered, destination_for(*message.info()), std::nullopt,
      std::nullopt, record->id.uuid()};
}

// The same context, receipt and order as cascade() would give, without building the envelope
// that only stored rows, records and cascades need.
absl::StatusOr<DeliveryReceipt> Dispatcher::publish_to_void_receptors(const AnyMessage& message,
                                                                      const Entry& entry) {
  const MessageId id = MessageId::mint();
  // A root emission starts its own conversation (as child_envelope does without a source).
  const MessageContext context = make_context(id, id, std::nullopt, outgoing_scope(nullptr));
  DiscardingSink sink;
  for (const ReceptorInfo* receptor : entry.default_stage) {
    ScopedMessageContext scope(context);
    if (absl::Status status = invoke_contained(*receptor, message, sink, nullptr); !status.ok()) {
      return status;
    }
  }
  return DeliveryReceipt{id,
                         DeliveryStatus::Delivered,
                         destination_for(*message.info()),
                         std::nullopt,
                         std::nullopt,
                         id.uuid()};
}

}  // namespace whizbang
