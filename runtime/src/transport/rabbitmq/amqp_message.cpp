#include "rabbitmq/amqp_message.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
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
// A .NET producer that offloaded a large body (its claim-check) says so in these headers.
constexpr std::string_view kIsClaimHeader = "whizbang.is-claim";
constexpr std::string_view kBodyStoreHeader = "whizbang.body-store";
constexpr std::string_view kOriginalTypeHeader = "whizbang.original-type";
// How much of a malformed id a refusal quotes (a sender may put megabytes there).
constexpr std::size_t kMaxQuotedIdBytes = 64;

const amqp_field_value_t* header_value(const amqp_basic_properties_t& properties,
                                       std::string_view name) {
  if ((properties._flags & AMQP_BASIC_HEADERS_FLAG) == 0) return nullptr;
  for (int i = 0; i < properties.headers.num_entries; ++i) {
    const amqp_table_entry_t& entry = properties.headers.entries[i];
    if (view_of(entry.key) == name) return &entry.value;
  }
  return nullptr;
}

std::optional<std::string_view> header(const amqp_basic_properties_t& properties,
                                       std::string_view name) {
  const amqp_field_value_t* value = header_value(properties, name);
  if (value != nullptr &&
      (value->kind == AMQP_FIELD_KIND_BYTES || value->kind == AMQP_FIELD_KIND_UTF8)) {
    return view_of(value->value.bytes);
  }
  return std::nullopt;
}

// .NET writes the claim flag as an AMQP boolean; a text "true" (any case) is taken too.
bool is_claim_check(const amqp_basic_properties_t& properties) {
  const amqp_field_value_t* value = header_value(properties, kIsClaimHeader);
  if (value == nullptr) return false;
  if (value->kind == AMQP_FIELD_KIND_BOOLEAN) return value->value.boolean != 0;
  if (value->kind == AMQP_FIELD_KIND_BYTES || value->kind == AMQP_FIELD_KIND_UTF8) {
    const std::string_view text = view_of(value->value.bytes);
    return text.size() == 4 && (text[0] == 't' || text[0] == 'T') &&
           (text[1] == 'r' || text[1] == 'R') && (text[2] == 'u' || text[2] == 'U') &&
           (text[3] == 'e' || text[3] == 'E');
  }
  return false;
}

// A header's text for a refusal, cut short (a sender may put megabytes there).
std::string quoted_header(const amqp_basic_properties_t& properties, std::string_view name) {
  constexpr std::size_t kMaxQuoted = 200;
  const std::optional<std::string_view> text = header(properties, name);
  if (!text) return "(none)";
  return fmt::format("'{}'", text->substr(0, kMaxQuoted));
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
                                       const TransportMessage& message,
                                       std::chrono::system_clock::time_point published_at)
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
      // A long string ('S'), as .NET writes a string header: .NET's client reads it as byte[],
      // the only form its consumer accepts (a byte array, 'x', would reach it as a
      // BinaryTableValue, read as a missing EnvelopeType and dead-lettered).
      entry.value.kind = AMQP_FIELD_KIND_UTF8;
      entry.value.value.bytes = bytes_of(value);
    }
    headers_.push_back(entry);
  }
  properties_._flags = AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG |
                       AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_TYPE_FLAG |
                       AMQP_BASIC_TIMESTAMP_FLAG | AMQP_BASIC_HEADERS_FLAG;
  // The first-publish stamp .NET's receivers judge a message's age by (whole unix seconds).
  properties_.timestamp = static_cast<std::uint64_t>(std::max<std::int64_t>(
      0,
      std::chrono::duration_cast<std::chrono::seconds>(published_at.time_since_epoch()).count()));
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
  const std::string where = "delivery on '" + incoming.destination.address + "' with key '" +
                            incoming.destination.routing_key + "'";
  if (is_claim_check(properties)) {
    // Never decoded as an envelope: the body is .NET's claim on an offloaded body.
    return absl::FailedPreconditionError(fmt::format(
        "{}{} is a claim check (whizbang.is-claim): its body is a claim on body store {} for a "
        "{}, not an envelope, and this service fetches no offloaded bodies",
        where,
        id_text.empty() ? std::string()
                        : fmt::format(" (message {})", id_text.substr(0, kMaxQuotedIdBytes)),
        quoted_header(properties, kBodyStoreHeader),
        quoted_header(properties, kOriginalTypeHeader)));
  }
  if (id_text.empty()) id_text = body().id;
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
