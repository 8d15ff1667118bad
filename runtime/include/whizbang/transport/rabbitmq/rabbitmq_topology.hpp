// How the RabbitMQ transport lays out the broker: the same names and flags a Whizbang .NET
// service uses, so services in both languages share one broker (docs/guide/13-rabbitmq.md).
//
// - An address is a durable topic exchange of that name (a lower-cased namespace for events,
//   "inbox" for commands); the routing key is the lower-cased "namespace.typename"
//   (routing_key_for in whizbang/message/wire_routing.hpp, which the publish strategy uses).
// - A service's subscription to an exchange is one durable queue "{service}-{exchange}", declared
//   when the service subscribes, so a command sent while the service is down waits in it.
// - Each queue dead-letters through the fanout exchange "{exchange}.dlx" into "{queue}.dlq".
// - The body is the JSON envelope; the message carries message_id, correlation_id (when the
//   envelope has one), type, content_type "application/json", delivery_mode 2 (persistent) and
//   the headers EnvelopeType (the .NET envelope type name), CausationId (when the envelope has
//   one) and StreamId.
#pragma once

#include <string>
#include <string_view>

namespace whizbang {

std::string rabbitmq_queue_name(std::string_view service_name, std::string_view exchange);
std::string rabbitmq_dead_letter_exchange(std::string_view exchange);
std::string rabbitmq_dead_letter_queue(std::string_view queue);

// The AMQP binding key for a Whizbang routing pattern. AMQP's `*` is one dot-separated word and
// `#` any number of words, while a Whizbang pattern's trailing '*' matches any suffix:
//   ""               -> "#"
//   "shop.orders"    -> "shop.orders"          (exact)
//   "shop.*"         -> "shop.#"
//   "shop.reserve*"  -> "shop.#"               (widened to the last whole word)
// A widened binding can deliver keys the pattern does not match; the subscription filters them
// out (routing_key_matches) and acknowledges them without handling.
std::string rabbitmq_binding_key(std::string_view pattern);

// The .NET envelope type name for a payload type name:
//   "Whizbang.Core.Observability.MessageEnvelope`1[[<type>]], Whizbang.Core".
std::string rabbitmq_envelope_type(std::string_view message_type);
// The payload type name inside an envelope type name, without .NET's Version, Culture and
// PublicKeyToken parts; empty when `envelope_type` has no "[[...]]".
std::string message_type_from_envelope_type(std::string_view envelope_type);

}  // namespace whizbang
