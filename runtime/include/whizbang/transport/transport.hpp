// Transport: how outbox rows leave a service and reach other services' inboxes.
//
// A transport publishes batches to an address (a topic/exchange) with a routing key and delivers
// to subscriptions bound to (address, routing key). Delivery is at-least-once: a subscriber's
// handler stores the batch in its inbox (deduplicated there) before acknowledging by returning
// OK; a failed handler fails the publish, so the outbox row is retried. A handler may also refuse
// single messages of a batch (DeliveryOutcome::refused): they go to the transport's dead letters
// and never block what comes after them.
//
// InProcessTransport (in_process_transport.hpp) connects services in one process; a RabbitMQ
// transport maps address -> topic exchange, routing key -> routing key, subscription -> one
// queue per service with its bindings, and acknowledges after the handler returns.
//
//   auto sub = transport.subscribe("inventory", {{"orders", ""}, {"inbox", "shop.reserve*"}},
//                                  [&](const auto& destination, auto batch) {
//                                    return consumer.receive(batch);
//                                  });
//   transport.publish({"orders", "shop.ordercreated"}, batch);
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/observability/span_data.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {

class Tracer;  // whizbang/observability/tracer.hpp

struct TransportMessage {
  MessageId message_id;
  // The payload's wire name. On receipt, whatever name the sender used: a wire name, or the
  // .NET assembly-qualified name of a type shared with .NET (the inbox resolves both).
  std::string message_type;
  std::string envelope_json;
  std::optional<Uuid> stream_id;
  bool is_event = false;
  // The payload's .NET type ("Ns.Type, Assembly") when its type is shared with Whizbang .NET
  // services ([[whizbang::dotnet_type]]); empty otherwise. A transport that carries messages to
  // .NET names the envelope by it (the RabbitMQ transport's EnvelopeType header).
  std::string dotnet_type = {};
  // The envelope's correlation and causation ids (its first hop's), for transports that carry
  // them beside the body as Whizbang .NET does (RabbitMQ: the correlation_id property and the
  // CausationId header). Informational: receivers read the envelope.
  std::optional<MessageId> correlation_id = {};
  std::optional<MessageId> causation_id = {};
};

struct TransportDestination {
  std::string address;
  std::string routing_key;
  // For ordered/session transports, e.g. {"StreamId": "…"}.
  std::map<std::string, std::string> metadata;
};

// A delivered message its subscriber will not take, and why (docs/guide/16-security.md, "What a
// sender on the broker can and cannot do"): not valid text, an id that is not the envelope's, a
// type the service does not know, a signature that does not verify, or a message the store kept
// failing to take.
struct RefusedDelivery {
  std::size_t index = 0;  // into the delivered batch
  std::string reason;
};

// What a subscriber made of a delivered batch.
//
// `status` not OK: nothing of the batch is taken; the transport offers all of it again later
// (RabbitMQ: requeued in order, after a backoff). OK: every message of the batch is taken,
// except the `refused` ones, which the transport moves to its dead letters (RabbitMQ: rejected
// without requeue into the queue's `{queue}.dlq`) instead of offering them again. A handler
// returning a plain absl::Status converts to an outcome with no refusals.
struct DeliveryOutcome {
  DeliveryOutcome(absl::Status handled = absl::OkStatus())  // NOLINT: implicit by design
      : status(std::move(handled)) {}

  bool ok() const { return status.ok(); }

  absl::Status status;
  std::vector<RefusedDelivery> refused;
  // Tracing on: the subscriber's tracer and, by batch index, each delivery's receive span (none
  // where it has none), under which a transport traces its settling of the delivery (a `settle`
  // span: docs/guide/18-tracing.md). Empty, or a null tracer: nothing is traced.
  const Tracer* tracer = nullptr;
  std::vector<std::optional<TraceContext>> settle_parents;
};

// A subscription receives what is published to `address` with a matching routing key: an empty
// pattern matches every key, a trailing '*' matches any suffix, anything else matches exactly.
struct TransportBinding {
  std::string address;
  std::string routing_key;
};

bool routing_key_matches(std::string_view pattern, std::string_view key);

// Ends its subscription on destruction.
class TransportSubscription {
 public:
  virtual ~TransportSubscription() = default;
};

class Transport {
 public:
  using DeliveryHandler = std::function<DeliveryOutcome(const TransportDestination& destination,
                                                        std::span<const TransportMessage> batch)>;

  virtual ~Transport() = default;

  // Publishes `batch` (one address and routing key) and returns once every subscriber holds it.
  virtual absl::Status publish(const TransportDestination& destination,
                               std::span<const TransportMessage> batch) = 0;

  virtual absl::StatusOr<std::unique_ptr<TransportSubscription>> subscribe(
      std::string_view service_name, std::vector<TransportBinding> bindings,
      DeliveryHandler handler) = 0;

  // False while the transport cannot publish (connection down); the worker keeps its rows.
  virtual bool is_ready() const { return true; }

  // True when deliveries come on threads of the transport's own (a broker connection's), never
  // inside a publish() call: the receiving service may then handle a delivery on that thread.
  virtual bool delivers_on_own_threads() const { return false; }
  // The OpenTelemetry `messaging.system` of its spans (docs/guide/18-tracing.md).
  virtual std::string_view messaging_system() const { return "whizbang"; }

  // True when the transport keeps what a subscriber refuses (DeliveryOutcome::refused) in dead
  // letters of its own (RabbitMQ with dead_letter_exchanges). False: a refused message would be
  // gone once acknowledged, so the subscriber keeps it itself (the inbox: one dead letter per
  // distinct content in its store).
  virtual bool dead_letters_refused() const { return false; }
};

// Runs a delivery handler as status_of_call() runs a call: what it throws becomes the outcome's
// status, naming `context`.
template <class Call>
DeliveryOutcome outcome_of_call(std::string_view context, Call&& call) noexcept {
  try {
    return call();
  } catch (...) {
    return DeliveryOutcome(status_from_current_exception(context));
  }
}

// A publish that failed through the transport's passing state, not its messages: a broker that
// returned a message moments after a (re)connect, before its subscribers' bindings were back.
// The outbox keeps such rows and offers them again on its next cycle, without counting an
// attempt or backing off, as it does while is_ready() is false.
absl::Status mark_transport_settling(absl::Status status);
bool is_transport_settling(const absl::Status& status);

}  // namespace whizbang
