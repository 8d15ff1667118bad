#include "rabbitmq/amqp_message.hpp"

#include <rapidjson/document.h>

#include <optional>

#include "fmt/format.h"
#include "rabbitmq/amqp_connection.hpp"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/transport/command_inboxes.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_topology.hpp"

namespace whizbang::rabbitmq {
namespace {

constexpr std::string_view kEnvelopeTypeHeader = "EnvelopeType";
constexpr std::string_view kCausationIdHeader = "CausationId";
constexpr std::string_view kStreamIdHeader = "StreamId";
// How much of a malformed id a refusal quotes (a sender may put megabytes there).
constexpr std::size_t kMaxQuotedIdBytes = 64;

std::optional<std::string_view> header(const amqp_basic_properties_t& properties,
                                       std::string_view name) {
  if ((properties._flags & AMQP_BASIC_HEADERS_FLAG) == 0) return std::nullopt;
  for (int i = 0; i < properties.headers.num_entries; ++i) {
    const amqp_table_entry_t& entry = properties.headers.entries[i];
    if (view_of(entry.key) != name) continue;
    if (entry.value.kind == AMQP_FIELD_KIND_BYTES || entry.value.kind == AMQP_FIELD_KIND_UTF8) {
      return view_of(entry.value.value.bytes);
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> property(const amqp_basic_properties_t& properties,
                                         amqp_flags_t flag, const amqp_bytes_t& value) {
  if ((properties._flags & flag) == 0) return std::nullopt;
  return view_of(value);
}

// The envelope's own "id" and "t", for deliveries that lack the AMQP properties.
struct BodyFields {
  std::string id;
  std::string type;
};

BodyFields body_fields(std::string_view body) {
  rapidjson::Document document;
  BodyFields fields;
  if (internal::parse_bounded(body, document).IsError() || !document.IsObject()) return fields;
  auto text = [&](const char* key) -> std::string {
    auto member = document.FindMember(key);
    if (member == document.MemberEnd() || !member->value.IsString()) return {};
    return {member->value.GetString(), member->value.GetStringLength()};
  };
  fields.id = text("id");
  fields.type = text("t");
  return fields;
}

}  // namespace

OutgoingProperties::OutgoingProperties(const TransportDestination& destination,
                                       const TransportMessage& message)
    : message_id_(message.message_id.to_string()),
      envelope_type_(rabbitmq_envelope_type(message.dotnet_type.empty() ? message.message_type
                                                                        : message.dotnet_type)) {
  header_texts_.emplace_back(kEnvelopeTypeHeader, envelope_type_);
  if (message.causation_id) {
    header_texts_.emplace_back(kCausationIdHeader, message.causation_id->to_string());
  }
  for (const auto& [key, value] : destination.metadata) header_texts_.emplace_back(key, value);
  if (message.stream_id && !destination.metadata.contains(std::string(kStreamIdHeader))) {
    header_texts_.emplace_back(kStreamIdHeader, message.stream_id->to_string());
  }
  headers_.reserve(header_texts_.size());
  for (const auto& [key, value] : header_texts_) {
    amqp_table_entry_t entry{};
    entry.key = bytes_of(key);
    if (key == kRequireProvisionedEntity) {
      // A boolean, as .NET writes this destination metadata.
      entry.value.kind = AMQP_FIELD_KIND_BOOLEAN;
      entry.value.value.boolean = value == "true" ? 1 : 0;
    } else {
      // A long string ('S'): .NET reads it as byte[], the only form its consumer accepts.
      entry.value.kind = AMQP_FIELD_KIND_BYTES;
      entry.value.value.bytes = bytes_of(value);
    }
    headers_.push_back(entry);
  }
  properties_._flags = AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG |
                       AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_TYPE_FLAG | AMQP_BASIC_HEADERS_FLAG;
  properties_.content_type = amqp_cstring_bytes("application/json");
  properties_.delivery_mode = AMQP_DELIVERY_PERSISTENT;
  properties_.message_id = bytes_of(message_id_);
  properties_.type = bytes_of(message.message_type);
  if (message.correlation_id) {
    correlation_id_ = message.correlation_id->to_string();
    properties_._flags |= AMQP_BASIC_CORRELATION_ID_FLAG;
    properties_.correlation_id = bytes_of(correlation_id_);
  }
  properties_.headers.num_entries = static_cast<int>(headers_.size());
  properties_.headers.entries = headers_.data();
}

absl::StatusOr<IncomingMessage> decode_delivery(const amqp_envelope_t& delivery,
                                                std::string_view inbox_exchange) {
  const amqp_basic_properties_t& properties = delivery.message.properties;
  IncomingMessage incoming;
  incoming.destination.address = std::string(view_of(delivery.exchange));
  incoming.destination.routing_key = std::string(view_of(delivery.routing_key));
  TransportMessage& message = incoming.message;
  message.envelope_json = std::string(view_of(delivery.message.body));
  // Commands arrive on the shared inbox or a namespace inbox ("inbox.<namespace>").
  message.is_event = !is_command_exchange(incoming.destination.address, inbox_exchange);

  std::optional<BodyFields> from_body;
  auto body = [&]() -> const BodyFields& {
    if (!from_body) from_body = body_fields(message.envelope_json);
    return *from_body;
  };

  std::string id_text(
      property(properties, AMQP_BASIC_MESSAGE_ID_FLAG, properties.message_id).value_or(""));
  const bool from_property = !id_text.empty();
  if (id_text.empty()) id_text = body().id;
  const std::string where = "delivery on '" + incoming.destination.address + "' with key '" +
                            incoming.destination.routing_key + "'";
  if (id_text.empty()) {
    return absl::InvalidArgumentError(
        where + " has no message id (no message_id property, no envelope id)");
  }
  absl::StatusOr<MessageId> id =
      id_text.size() <= kMaxQuotedIdBytes
          ? MessageId::parse(id_text)
          : absl::InvalidArgumentError(fmt::format("{} bytes long", id_text.size()));
  if (!id.ok()) {
    // The reason as it is: an id that is there but not a UUIDv7 is not a missing one.
    return absl::InvalidArgumentError(
        fmt::format("{}: its {} '{}' is not a message id: {}", where,
                    from_property ? "message_id property" : "envelope id",
                    id_text.substr(0, kMaxQuotedIdBytes), std::string(id.status().message())));
  }
  message.message_id = *id;

  message.message_type =
      std::string(property(properties, AMQP_BASIC_TYPE_FLAG, properties.type).value_or(""));
  if (message.message_type.empty()) {
    if (auto envelope_type = header(properties, kEnvelopeTypeHeader)) {
      message.message_type = message_type_from_envelope_type(*envelope_type);
    }
  }
  if (message.message_type.empty()) message.message_type = body().type;
  if (message.message_type.empty()) {
    return absl::InvalidArgumentError("delivery " + id_text +
                                      " names no message type (no type property, no "
                                      "EnvelopeType header, no envelope \"t\")");
  }

  if (auto stream = header(properties, kStreamIdHeader)) {
    absl::StatusOr<Uuid> stream_id = Uuid::parse(*stream);
    if (stream_id.ok()) message.stream_id = *stream_id;
  }
  if (message.stream_id) incoming.destination.metadata["StreamId"] = message.stream_id->to_string();
  return incoming;
}

}  // namespace whizbang::rabbitmq
