// Between TransportMessage and AMQP: the properties and headers a publish carries, and the
// message a delivery becomes (docs/guide/13-rabbitmq.md, "On the wire").
#pragma once

#include <amqp.h>

#include <chrono>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/transport/transport.hpp"

namespace whizbang::rabbitmq {

// The properties of one outgoing message. Owns the strings the amqp structs point into, so it
// must outlive the amqp_basic_publish call that uses properties().
class OutgoingProperties {
 public:
  // `published_at` becomes the AMQP timestamp (whole unix seconds, as .NET stamps a publish).
  OutgoingProperties(
      const TransportDestination& destination, const TransportMessage& message,
      std::chrono::system_clock::time_point published_at = std::chrono::system_clock::now());
  OutgoingProperties(const OutgoingProperties&) = delete;
  OutgoingProperties& operator=(const OutgoingProperties&) = delete;

  const amqp_basic_properties_t* properties() const { return &properties_; }

 private:
  std::string message_id_;
  std::string correlation_id_;
  std::string envelope_type_;
  std::vector<std::pair<std::string, std::string>> header_texts_;
  std::vector<amqp_table_entry_t> headers_;
  amqp_basic_properties_t properties_{};
};

// A delivery as the subscription hands it to its handler.
struct IncomingMessage {
  TransportDestination destination;
  TransportMessage message;
};

// Reads the message id (the message_id property, else the envelope's "id"), the type (the type
// property, else the EnvelopeType header, else the envelope's "t") and the stream id (the
// StreamId header). Not OK when the delivery has no usable id or type: it cannot be stored, so
// it goes to the dead letters. So does a .NET claim check ("whizbang.is-claim" true): its body
// is a claim on a body store, not the envelope, and this runtime fetches no offloaded bodies
// (FailedPrecondition, naming the store and the original type).
absl::StatusOr<IncomingMessage> decode_delivery(const amqp_envelope_t& delivery,
                                                std::string_view inbox_exchange);

}  // namespace whizbang::rabbitmq
