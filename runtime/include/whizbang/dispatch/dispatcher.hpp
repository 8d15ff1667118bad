// Dispatcher: local_invoke, send, publish and the automatic message cascade.
//
// Receptors return plain values; every message inside the value (a tuple, nested tuples, a vector
// or array of messages, Routed<T>, std::optional) is cascaded onward by the route it resolves to:
//
//   Local (default)  local receptors + the event store (outbox row with no destination)
//   LocalNoPersist   local receptors only
//   EventStoreOnly   the event store only
//   Outbox           the outbox only (another service handles it)
//   Both             local receptors + the outbox
//
// A cascaded message's id is derived from the handling that emitted it (EmissionIdentity), so a
// retried handling emits the same ids and the store drops the duplicates. See
// docs/guide/05-emission-identity.md.
//
//   auto dispatcher = whizbang::Dispatcher::create(whizbang::generated::orders::registry(),
//                                                  services, {.self = {.service_name = "orders"}});
//   absl::StatusOr<std::tuple<OrderResult, OrderCreated>> result =
//       (*dispatcher)->local_invoke<std::tuple<OrderResult, OrderCreated>>(CreateOrder{"o-1"});
//   absl::StatusOr<whizbang::DeliveryReceipt> receipt = (*dispatcher)->send(SendInvoice{"o-1"});
//   (*dispatcher)->publish(OrderShipped{"o-1"});
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/dispatch/delivery_receipt.hpp"
#include "whizbang/dispatch/outbox_routing.hpp"
#include "whizbang/exactly_once/guardrails.hpp"
#include "whizbang/exactly_once/receptor_dedup_store.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/message/route.hpp"
#include "whizbang/observability/tracer.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/outbox_store.hpp"

namespace whizbang {

struct MessageContext;

class TenantChoice;

// An idempotency key a caller chooses for a send or publish from its own code: a request id, a
// client's retry token (docs/guide/17-your-data.md, "Publish once"). The message's id derives
// from the service, the message type and the key (DispatchKeyIdentity), and the store records
// the dispatch in the same transaction: a retried request dispatches nothing again and gets a
// receipt that says `duplicate`.
struct IdempotencyKey {
  std::string value;
};

// What a publish made outside any open transaction does with its outbox rows.
enum class PublishOutsideTransaction : std::uint8_t {
  // Queue them on `defer` (the deferred outbox channel): the drain worker writes them at the start
  // of its next cycle, woken by the queueing. The cascade page's behaviour; a crash before that
  // cycle loses them.
  Defer = 0,
  // Write them in a unit of work of their own: durable when publish() returns.
  WriteThrough = 1,
};

struct DispatcherOptions {
  // This service instance: its name feeds derived ids and every hop names it.
  ServiceInstance self;
  // This service's id, stamped on each envelope written to the outbox that names no publishing
  // service yet (Envelope::source_service_id). Nil: the outbox drain worker stamps it when it
  // publishes, which costs a second serialization of each envelope.
  Uuid source_service_id;
  // Where outbox and event-store rows go (a WorkStore, usually). Without one, rows go to `defer`.
  OutboxStore* store = nullptr;
  // Receives rows when there is no store (e.g. a deferred outbox channel). Null: rows are dropped
  // with a warning.
  std::function<void(OutboxMessage)> defer;
  // Serializes envelopes for outbox rows. Defaults to the envelope JSON codec.
  std::function<std::string(const Envelope&)> serialize;
  DestinationResolver destination = default_destination;
  // Namespaces this service owns ("shop" or "shop::orders"; see is_owned). A cascaded command of
  // an owned namespace routed exactly Outbox is handled here instead (Local); a command of an
  // owned namespace sent with no receptor here is Accepted and not queued (it would only come
  // back), with a Warning. Empty: no ownership rules.
  std::vector<std::string> owned_domains;
  // Runs one top-level dispatch (send, local_invoke, publish, cascade_message) as a unit of work,
  // e.g. in a store transaction that an already open one joins: the rows a dispatch writes commit
  // together or not at all. Null: each row is written on its own. ServiceHost sets it.
  std::function<absl::Status(const std::function<absl::Status()>& work)> unit_of_work;
  // Whether the calling thread has a transaction open on `store` that a dispatch joins. With it
  // and `defer` set, a publish made outside one follows `publish_outside_transaction`; every
  // other dispatch (and any publish without them) runs in its unit of work.
  std::function<bool()> in_transaction;
  PublishOutsideTransaction publish_outside_transaction = PublishOutsideTransaction::WriteThrough;
  // Exactly-once: the local path of a cascade or publish records one LocalImmediateInline
  // invocation per receptor it ran onto the envelope it stores, so the same receptor does not
  // fire again for the message in this service. Tracking Off or no dedup store: no records.
  GuardrailOptions guardrails;
  std::shared_ptr<ReceptorDedupStore> dedup_store;
  std::shared_ptr<spdlog::logger> logger;
  // Spans of dispatches and receptors (docs/guide/18-tracing.md). Null: tracing off; hops still
  // carry the thread's current trace context (TraceScope) as `tp`.
  std::shared_ptr<Tracer> tracer;
};

// One cascaded message as the dispatcher handled it (for tests and tracing hooks).
struct CascadeRecord {
  AnyMessage message;
  MessageId id;
  DispatchModes mode = DispatchModes::None;
};

class Dispatcher {
 public:
  // Builds every receptor of `registry` from `services`; a missing dependency is an error that
  // names the receptor and the type.
  static absl::StatusOr<std::unique_ptr<Dispatcher>> create(const Registry& registry,
                                                            const ServiceRegistry& services,
                                                            DispatcherOptions options);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Runs the message's receptor and returns what it returned — the full value, cascaded messages
  // still in it — after cascading them. A receptor returning Routed<Result> gives the caller the
  // Result inside. `message` may be a Routed<M> (unwrapped; RoutedNone is an error).
  template <class Result, class Message>
  absl::StatusOr<Result> local_invoke(Message&& message);

  // Runs the message's receptor and cascades its result; for receptors whose result the caller
  // does not need.
  template <class Message>
  absl::Status local_invoke(Message&& message);

  // Handles a command locally when a receptor exists (receipt Delivered), else writes it to the
  // outbox for the service that owns it (receipt Accepted).
  template <class Message>
  absl::StatusOr<DeliveryReceipt> send(Message&& message);
  // Once per key: the first call sends; a retry with the same key does nothing and answers a
  // receipt with `duplicate` set (for the retention of dispatch keys, RetentionOptions). Runs in
  // a unit of work with the store (a ServiceHost's dispatcher does): what a local receptor
  // writes, the outbox row and the record of the key commit together.
  template <class Message>
  absl::StatusOr<DeliveryReceipt> send(Message&& message, const IdempotencyKey& key);

  // Publishes an event: its default-stage local receptors run and it goes to the outbox (route
  // Both), unless wrapped in Route::X(...) or its type declares a default route. Explicit
  // publishes mint fresh ids: where a caller retries, give an IdempotencyKey (below), or return
  // the events from receptors.
  // Outside any store transaction its rows may be deferred to the drain worker's next cycle
  // (DispatcherOptions::publish_outside_transaction; ServiceHost defaults to Defer).
  template <class Message>
  absl::StatusOr<DeliveryReceipt> publish(Message&& message);
  // Once per key, as send(message, key). Never deferred: the record of the key needs the store.
  template <class Message>
  absl::StatusOr<DeliveryReceipt> publish(Message&& message, const IdempotencyKey& key);

  // Publishes a message for delivery at `deliver_at`: its outbox (or event-store) row is written
  // now and claimed once due, at the drain worker's next poll. Nothing runs locally and no
  // invocation record is written; the receipt is Queued. The route (Route::X(...), the type's
  // default, else Both) must reach the outbox or the event store.
  template <class Message>
  absl::StatusOr<DeliveryReceipt> publish_at(Message&& message, TimePoint deliver_at);

  // Cascades one message as if a receptor handling `source` had returned it with `mode`.
  // With a source envelope carrying an id the message's id is derived; otherwise minted.
  absl::StatusOr<CascadeRecord> cascade_message(const AnyMessage& message, const Envelope* source,
                                                DispatchModes mode);

  // Type-erased forms of the calls above.
  struct InvokeOutcome {
    const ReceptorInfo* receptor = nullptr;
    std::shared_ptr<void> response;  // typed by receptor->response_key; null for void
    MessageId message_id;
    std::optional<MessageId> correlation_id;
    std::optional<MessageId> causation_id;
  };
  absl::StatusOr<InvokeOutcome> invoke_any(const AnyMessage& message, bool want_response);
  absl::StatusOr<DeliveryReceipt> send_any(const AnyMessage& message);
  absl::StatusOr<DeliveryReceipt> send_any(const AnyMessage& message, const IdempotencyKey& key);
  absl::StatusOr<DeliveryReceipt> publish_any(const AnyMessage& message, DispatchModes mode);
  absl::StatusOr<DeliveryReceipt> publish_any(const AnyMessage& message, DispatchModes mode,
                                              const IdempotencyKey& key);
  absl::StatusOr<DeliveryReceipt> publish_at_any(const AnyMessage& message, DispatchModes mode,
                                                 TimePoint deliver_at);

  // Runs one receptor for `handling` (an envelope whose dispatch_context.handler_name names the
  // handling) and cascades its result with `handling` as the source.
  absl::Status run_receptor(const ReceptorInfo& receptor, const Envelope& handling);
  // The same for a handling named `handler` with its own emission sequence, without copying the
  // envelope: the lifecycle invoker's entry point.
  absl::Status run_receptor(const ReceptorInfo& receptor, const Envelope& envelope,
                            std::string_view handler);
  // Runs one receptor for `envelope` and drops what its result would cascade: a replay or a
  // rebuild re-runs opted-in receptors, and replays never emit (docs/perspectives.md, "Rebuild").
  // Returns how many messages were dropped.
  absl::StatusOr<std::size_t> run_receptor_without_emitting(const ReceptorInfo& receptor,
                                                            const Envelope& envelope);

  // The receptors of `type` registered at `stage`, in declaration order. The span lives as long
  // as the dispatcher.
  std::span<const ReceptorInfo* const> receptors_at(const MessageTypeInfo& type, Stage stage) const;

  // Explicit security for the next dispatch (see secured_dispatcher.hpp):
  //   dispatcher.as_system().for_tenant("t").send(cmd);
  TenantChoice as_system();
  TenantChoice run_as(std::string identity);

  const Registry& registry() const { return registry_; }
  const DispatcherOptions& options() const { return options_; }
  std::string_view service_name() const { return options_.self.service_name; }
  // Null when tracing is off.
  const Tracer* tracer() const { return options_.tracer.get(); }

 private:
  struct EmissionSource;
  struct Entry;

  Dispatcher(const Registry& registry, ReceptorSet receptors, DispatcherOptions options);

  const Entry* entry_for(const MessageTypeInfo& type) const;
  std::size_t entry_slot(const MessageTypeInfo* type) const;  // where entry_for starts looking
  // Borrowed when the default resolver's (kept for the program's life), else owned.
  StaticOrOwnedString destination_for(const MessageTypeInfo& type) const;
  // The same when the caller holds the type's entry already (nullptr: none): no second lookup.
  StaticOrOwnedString destination_for(const Entry* entry, const MessageTypeInfo& type) const;
  // Runs `work` inside options_.unit_of_work when set (and directly, with no wrapping cost,
  // when not).
  template <class Result, class Work>
  absl::StatusOr<Result> unit_of_work(Work&& work);
  template <class Message>
  static absl::StatusOr<AnyMessage> to_any(Message&& message, DispatchModes* mode);

  // `root_id`, where the *_now verbs take one: the id of the dispatched message, when the
  // caller chose it (a keyed dispatch); else one is minted.
  absl::StatusOr<InvokeOutcome> invoke_any_now(const AnyMessage& message, bool want_response,
                                               const MessageId* root_id = nullptr);
  absl::StatusOr<DeliveryReceipt> send_any_now(const AnyMessage& message,
                                               const MessageId* root_id = nullptr);
  absl::StatusOr<DeliveryReceipt> publish_any_now(const AnyMessage& message, DispatchModes mode,
                                                  const MessageId* root_id = nullptr);
  // A send or publish once per key (dispatcher_keyed.cpp): `dispatch` runs in the unit of work
  // that records the key, with the id the key derives, unless the key was recorded before.
  absl::StatusOr<DeliveryReceipt> keyed(
      const AnyMessage& message, const IdempotencyKey& key, bool sending,
      const std::function<absl::StatusOr<DeliveryReceipt>(const MessageId&)>& dispatch);
  // A LocalNoPersist publish to receptors that return nothing: no envelope, no row, no record.
  absl::StatusOr<DeliveryReceipt> publish_to_void_receptors(const AnyMessage& message,
                                                            const Entry& entry,
                                                            const MessageId* root_id);
  // The same with spans (tracing on; dispatcher_tracing.cpp).
  absl::StatusOr<DeliveryReceipt> publish_to_void_receptors_traced(const AnyMessage& message,
                                                                   const Entry& entry,
                                                                   const MessageId& id,
                                                                   const MessageContext& context);
  absl::StatusOr<InvokeOutcome> invoke_receptor(const ReceptorInfo& receptor,
                                                const AnyMessage& message, bool want_response,
                                                const MessageId* root_id = nullptr);
  // Invokes one receptor; what it throws comes back as a status (whizbang/retry/failure.hpp).
  absl::Status invoke_contained(const ReceptorInfo& receptor, const AnyMessage& message,
                                CascadeSink& sink, std::shared_ptr<void>* response);
  absl::Status run_and_cascade(const ReceptorInfo& receptor, const EmissionSource& source,
                               std::shared_ptr<void>* response);
  absl::StatusOr<CascadeRecord> cascade(const AnyMessage& message, const EmissionSource* source,
                                        DispatchModes mode, const MessageId* root_id = nullptr);
  // cascade()'s routing of the built envelope: local receptors, event store, outbox.
  absl::StatusOr<CascadeRecord> dispatch_envelope(Envelope& envelope, DispatchModes mode,
                                                  Span& span);
  // Runs the default-stage receptors of the envelope's message. With `records` set, appends a
  // LocalImmediateInline record per receptor that ran.
  absl::Status publish_local(const Envelope& envelope,
                             std::vector<ReceptorInvocationRecord>* records);
  bool records_local_invocations() const;
  // True when rows written now go to `defer` although there is a store: a deferring publish
  // outside any transaction.
  bool defers_outside_transaction() const;
  // `span`: the dispatch's span, told when the store dropped the row as a duplicate.
  absl::Status write_outbox(const Envelope& envelope, std::optional<std::string> destination,
                            std::optional<TimePoint> scheduled_for = std::nullopt,
                            Span* span = nullptr);
  // `ordinal`: set to the emission ordinal when the id was derived.
  MessageId emission_id(const MessageTypeInfo& type, const EmissionSource* source,
                        std::int64_t* ordinal = nullptr);
  // The dispatch span of `envelope` (dispatcher_tracing.cpp), and its last hop's `tp`: the
  // span's context, or (tracing off) the thread's current one.
  Span trace_dispatch(Envelope& envelope, DispatchModes mode, const EmissionSource* source,
                      std::int64_t ordinal) const;
  Envelope child_envelope(const AnyMessage& message, const MessageId& id,
                          const EmissionSource* source) const;
  Envelope root_envelope(const AnyMessage& message, const MessageId* id = nullptr) const;

  const Registry& registry_;
  ReceptorSet receptors_;
  DispatcherOptions options_;
  std::vector<std::unique_ptr<Entry>> entries_;
  // The entries by type address, open addressing in a power of two at least twice their number:
  // one multiply and usually one probe per dispatch (a binary search took five).
  std::vector<std::pair<const MessageTypeInfo*, const Entry*>> entry_slots_;
  unsigned entry_shift_ = 63;  // 64 - log2(entry_slots_.size())
};

// ---- implementation of the templates -------------------------------------------------------

template <class Result, class Work>
absl::StatusOr<Result> Dispatcher::unit_of_work(Work&& work) {
  if (!options_.unit_of_work) return work();
  std::optional<absl::StatusOr<Result>> result;
  absl::Status status = options_.unit_of_work([&]() -> absl::Status {
    result = work();
    return result->status();
  });
  if (!result) return status;  // the unit of work failed before running `work`
  if (!result->ok()) return result->status();
  if (!status.ok()) return status;  // e.g. the commit failed
  return *std::move(result);
}

template <class Message>
absl::StatusOr<AnyMessage> Dispatcher::to_any(Message&& message, DispatchModes* mode) {
  using Plain = std::remove_cvref_t<Message>;
  if constexpr (std::is_same_v<Plain, RoutedNone>) {
    return absl::InvalidArgumentError("cannot dispatch a RoutedNone: it carries no message");
  } else if constexpr (is_routed_v<Plain>) {
    if (message.mode == DispatchModes::None) {
      return absl::InvalidArgumentError("cannot dispatch a Routed value with mode None");
    }
    if (mode != nullptr) *mode = message.mode;
    return to_any(std::forward<Message>(message).value, nullptr);
  } else {
    static_assert(GeneratedMessage<Plain>,
                  "not a message type known to whizbang-gen: derive from whizbang::Event or "
                  "whizbang::Command and list its header in whizbang_generate()");
    // Borrowed, not copied: every dispatch finishes with the message before it returns (rows
    // hold its JSON, receptors get a const reference), and a temporary argument lives until then.
    return AnyMessage::borrow<Plain>(message);
  }
}

template <class Result, class Message>
absl::StatusOr<Result> Dispatcher::local_invoke(Message&& message) {
  absl::StatusOr<AnyMessage> any = to_any(std::forward<Message>(message), nullptr);
  if (!any.ok()) return any.status();
  // The answer is taken inside the unit of work: when the result holds no Result, the error
  // rolls back the rows the handling wrote.
  return unit_of_work<Result>([&]() -> absl::StatusOr<Result> {
    absl::StatusOr<InvokeOutcome> outcome = invoke_any_now(*any, /*want_response=*/true);
    if (!outcome.ok()) return outcome.status();
    const ReceptorInfo& receptor = *outcome->receptor;
    if (receptor.response_key == internal::type_key<Result>()) {
      return std::move(*static_cast<Result*>(outcome->response.get()));
    }
    if (receptor.response_key == internal::type_key<Routed<Result>>()) {
      return std::move(static_cast<Routed<Result>*>(outcome->response.get())->value);
    }
    if (receptor.find_response != nullptr) {
      if (const void* found =
              receptor.find_response(outcome->response.get(), internal::type_key<Result>())) {
        return *static_cast<const Result*>(found);
      }
    }
    return absl::InvalidArgumentError(
        fmt::format("receptor {} returns {}, which holds no value of the requested type",
                    receptor.id, receptor.response_type.empty() ? "void" : receptor.response_type));
  });
}

template <class Message>
absl::Status Dispatcher::local_invoke(Message&& message) {
  absl::StatusOr<AnyMessage> any = to_any(std::forward<Message>(message), nullptr);
  if (!any.ok()) return any.status();
  return invoke_any(*any, /*want_response=*/false).status();
}

template <class Message>
absl::StatusOr<DeliveryReceipt> Dispatcher::send(Message&& message) {
  absl::StatusOr<AnyMessage> any = to_any(std::forward<Message>(message), nullptr);
  if (!any.ok()) return any.status();
  return send_any(*any);
}

template <class Message>
absl::StatusOr<DeliveryReceipt> Dispatcher::send(Message&& message, const IdempotencyKey& key) {
  absl::StatusOr<AnyMessage> any = to_any(std::forward<Message>(message), nullptr);
  if (!any.ok()) return any.status();
  return send_any(*any, key);
}

template <class Message>
absl::StatusOr<DeliveryReceipt> Dispatcher::publish(Message&& message, const IdempotencyKey& key) {
  DispatchModes mode = DispatchModes::None;
  absl::StatusOr<AnyMessage> any = to_any(std::forward<Message>(message), &mode);
  if (!any.ok()) return any.status();
  if (mode == DispatchModes::None) {
    mode = any->info()->default_routing.value_or(DispatchModes::Both);
  }
  return publish_any(*any, mode, key);
}

template <class Message>
absl::StatusOr<DeliveryReceipt> Dispatcher::publish(Message&& message) {
  DispatchModes mode = DispatchModes::None;
  absl::StatusOr<AnyMessage> any = to_any(std::forward<Message>(message), &mode);
  if (!any.ok()) return any.status();
  if (mode == DispatchModes::None) {
    mode = any->info()->default_routing.value_or(DispatchModes::Both);
  }
  return publish_any(*any, mode);
}

template <class Message>
absl::StatusOr<DeliveryReceipt> Dispatcher::publish_at(Message&& message, TimePoint deliver_at) {
  DispatchModes mode = DispatchModes::None;
  absl::StatusOr<AnyMessage> any = to_any(std::forward<Message>(message), &mode);
  if (!any.ok()) return any.status();
  if (mode == DispatchModes::None) {
    mode = any->info()->default_routing.value_or(DispatchModes::Both);
  }
  return publish_at_any(*any, mode, deliver_at);
}

}  // namespace whizbang

#include "whizbang/dispatch/secured_dispatcher.hpp"  // IWYU pragma: export
