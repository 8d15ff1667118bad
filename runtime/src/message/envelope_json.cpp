#include "whizbang/message/envelope_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>

#include "envelope_json_parts.hpp"
#include "fmt/format.h"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/message/envelope_parse_memo.hpp"
#include "whizbang/message/payload_version.hpp"

namespace whizbang {
namespace {

using namespace envelope_json;  // NOLINT: the parts of this one format

// The envelope's document: parsed into `scratch`, or the one this thread's cycle parsed already
// (message/envelope_parse_memo.hpp).
absl::StatusOr<const rapidjson::Document*> parse_document(std::string_view json,
                                                          rapidjson::Document& scratch) {
  // Bounded: an unbounded recursive parse let a corrupt envelope of a few hundred thousand '['
  // overflow the stack (a crash, not an error status).
  internal::BoundedParseResult parsed;
  const rapidjson::Document* document = parsed_envelope(json, scratch, parsed);
  if (document == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("malformed envelope JSON {}", internal::describe_parse_error(parsed)));
  }
  if (!document->IsObject()) return shape_error("$", "an object");
  return document;
}

// The hops as written: with the payload's version on the last one when the hops do not already
// say it (the payload is always written in its type's current shape; payload_version.hpp).
void write_hops(Writer& writer, const Envelope& envelope) {
  const std::uint32_t version = envelope.payload ? envelope.payload.info()->version : 1;
  const absl::StatusOr<std::uint32_t> declared = payload_version(envelope.hops);
  const bool stamp = declared.ok() ? *declared != version : true;
  ScopeFold fold;  // each hop's scope is written as the change from the earlier hops'
  if (!stamp) {
    for (const MessageHop& hop : envelope.hops) write_hop(writer, hop, fold);
    return;
  }
  for (std::size_t i = 0; i + 1 < envelope.hops.size(); ++i) {
    write_hop(writer, envelope.hops[i], fold);
  }
  MessageHop last = envelope.hops.empty() ? MessageHop{} : envelope.hops.back();
  last.metadata[std::string(kPayloadVersionKey)] = std::to_string(version);
  write_hop(writer, last, fold);
}

}  // namespace

void serialize_envelope(const Envelope& envelope, std::string& out) {
  thread_local rapidjson::StringBuffer buffer;
  buffer.Clear();
  Writer writer(buffer);
  writer.StartObject();
  key(writer, "v");
  writer.Int(envelope.version);
  key(writer, "id");
  uuid(writer, envelope.message_id.uuid());
  if (const MessageTypeInfo* info = envelope.payload.info()) {
    key(writer, "t");
    string(writer, info->wire_name);
    key(writer, "p");
    info->write_json(envelope.payload.data(), static_cast<Writer::Base*>(&writer));
  }
  key(writer, "h");
  writer.StartArray();
  write_hops(writer, envelope);
  writer.EndArray();
  key(writer, "dc");
  writer.StartObject();
  key(writer, "m");
  writer.Int(static_cast<int>(envelope.dispatch_context.mode));
  key(writer, "s");
  writer.Int(static_cast<int>(envelope.dispatch_context.source));
  key(writer, "d");
  writer.Bool(envelope.dispatch_context.is_default_dispatch);
  writer.EndObject();
  write_records(writer, envelope);
  if (!envelope.source_service_id.is_nil()) {
    key(writer, "ss");
    uuid(writer, envelope.source_service_id);
  }
  write_dotnet_members(writer, envelope.dotnet);
  writer.EndObject();
  out.append(buffer.GetString(), buffer.GetSize());
}

std::string serialize_envelope(const Envelope& envelope) {
  std::string out;
  serialize_envelope(envelope, out);
  return out;
}

absl::StatusOr<Envelope> deserialize_envelope(std::string_view json,
                                              MessageTypeResolverRef resolver,
                                              std::string_view message_type,
                                              const EnvelopeLimits& limits) {
  if (json.size() > limits.max_bytes) {
    return absl::InvalidArgumentError(
        fmt::format("envelope of {} bytes: over the limit of {}", json.size(), limits.max_bytes));
  }
  rapidjson::Document scratch;
  absl::StatusOr<const rapidjson::Document*> parsed = parse_document(json, scratch);
  if (!parsed.ok()) return parsed.status();
  const Members document(**parsed);
  Envelope envelope;
  std::int64_t version = 1;
  WB_RETURN_IF_ERROR(read_int64(document, "v", version, "$"));
  envelope.version = static_cast<int>(version);

  const Value* id = member(document, "id");
  if (id == nullptr) return shape_error("$.id", "present");
  absl::StatusOr<Uuid> message_id = read_uuid_value(*id, "$.id");
  if (!message_id.ok()) return message_id.status();
  envelope.message_id = MessageId::from_trusted(*message_id);

  const Value* type = member(document, "t");
  const Value* payload = member(document, "p");
  const MessageTypeInfo* payload_info = nullptr;  // decoded once the hops say its version
  if (type != nullptr && !type->IsString()) return shape_error("$.t", "a string");
  std::string_view wire_name =
      type != nullptr ? std::string_view(type->GetString(), type->GetStringLength()) : message_type;
  if (wire_name.empty() && payload != nullptr && !payload->IsNull()) {
    return absl::InvalidArgumentError(
        fmt::format("envelope {}: a payload with no type name (no \"t\", none beside it)",
                    message_id->to_string()));
  }
  if (!wire_name.empty()) {
    const MessageTypeInfo* info = resolver(wire_name);
    if (info == nullptr) {
      return absl::NotFoundError(fmt::format("envelope {}: unknown message type '{}'",
                                             message_id->to_string(), wire_name));
    }
    if (type != nullptr && !message_type.empty() && message_type != wire_name &&
        resolver(message_type) != info) {
      return absl::InvalidArgumentError(
          fmt::format("envelope {}: its \"t\" '{}' is not the type '{}' it was sent as",
                      message_id->to_string(), wire_name, message_type));
    }
    if (payload == nullptr) return shape_error("$.p", "present");
    payload_info = info;
  }

  if (const Value* hops = member(document, "h"); hops != nullptr && !hops->IsNull()) {
    if (!hops->IsArray()) return shape_error("$.h", "an array");
    if (hops->Size() > limits.max_hops) {
      return absl::InvalidArgumentError(fmt::format("envelope {}: {} hops, over the limit of {}",
                                                    message_id->to_string(), hops->Size(),
                                                    limits.max_hops));
    }
    envelope.hops.resize(hops->Size());
    ScopeFold fold;  // each hop's scope is read as a change to the earlier hops'
    const JsonPath root = "$";
    const JsonPath hops_path = root.member("h");
    for (rapidjson::SizeType i = 0; i < hops->Size(); ++i) {
      WB_RETURN_IF_ERROR(read_hop((*hops)[i], envelope.hops[i], hops_path.at(i), fold));
    }
  }

  if (payload_info != nullptr) {
    absl::StatusOr<AnyMessage> message = [&]() -> absl::StatusOr<AnyMessage> {
      absl::StatusOr<std::uint32_t> shape = payload_version(envelope.hops);
      if (!shape.ok()) return shape.status();
      return decode_payload(*payload_info, payload, *shape);
    }();
    if (!message.ok()) {
      return absl::InvalidArgumentError(fmt::format("envelope {}: payload {}: {}",
                                                    message_id->to_string(), wire_name,
                                                    std::string(message.status().message())));
    }
    envelope.payload = *std::move(message);
  }

  if (const Value* dc = member(document, "dc"); dc != nullptr && !dc->IsNull()) {
    if (!dc->IsObject()) return shape_error("$.dc", "an object");
    const Members dispatch_context(*dc);
    std::int64_t mode = static_cast<std::int64_t>(DispatchModes::Local);
    std::int64_t source = 0;
    WB_RETURN_IF_ERROR(read_int64(dispatch_context, "m", mode, "$.dc"));
    WB_RETURN_IF_ERROR(read_int64(dispatch_context, "s", source, "$.dc"));
    if (mode < 0 || mode > 7) return shape_error("$.dc.m", "a dispatch mode");
    if (source < 0 || source > 2) return shape_error("$.dc.s", "a message source");
    envelope.dispatch_context.mode = static_cast<DispatchModes>(mode);
    envelope.dispatch_context.source = static_cast<MessageSource>(source);
    if (const Value* d = dispatch_context.find("d")) {
      if (!d->IsBool()) return shape_error("$.dc.d", "a bool");
      envelope.dispatch_context.is_default_dispatch = d->GetBool();
    }
  } else {
    // A reference v1 envelope without a dispatch context came through the outbox.
    envelope.dispatch_context.mode = DispatchModes::Outbox;
    envelope.dispatch_context.source = MessageSource::Local;
  }

  WB_RETURN_IF_ERROR(read_records(document, envelope, limits.max_receptor_invocations));

  if (const Value* ss = member(document, "ss"); ss != nullptr && !ss->IsNull()) {
    absl::StatusOr<Uuid> source = read_uuid_value(*ss, "$.ss");
    if (!source.ok()) return source.status();
    envelope.source_service_id = *source;
  }
  // Other members are skipped, as .NET's reader skips them; .NET's newer ones are carried.
  WB_RETURN_IF_ERROR(read_dotnet_members(document, envelope.dotnet));
  // .NET's "sid" is the sending service's id too (set when its outbox publishes).
  if (envelope.source_service_id.is_nil() && envelope.dotnet.source_service_id) {
    envelope.source_service_id = *envelope.dotnet.source_service_id;
  }
  return envelope;
}

absl::StatusOr<std::string> peek_envelope_type(std::string_view json) {
  rapidjson::Document scratch;
  absl::StatusOr<const rapidjson::Document*> document = parse_document(json, scratch);
  if (!document.ok()) return document.status();
  const Value* type = member(**document, "t");
  if (type == nullptr || !type->IsString()) return shape_error("$.t", "a string");
  return std::string(type->GetString(), type->GetStringLength());
}

}  // namespace whizbang
