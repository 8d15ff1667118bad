#include "whizbang/message/envelope_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "fmt/format.h"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/internal/json_codec.hpp"

namespace whizbang {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using Value = rapidjson::Value;

std::int64_t to_micros(TimePoint time) {
  return std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
}
TimePoint from_micros(std::int64_t micros) {
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(micros)));
}

void key(Writer& writer, std::string_view name) {
  writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}
void string(Writer& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}
void uuid(Writer& writer, const Uuid& id) {
  std::string text;
  text.reserve(36);
  internal::append_uuid(text, id);
  string(writer, text);
}

void write_hop(Writer& writer, const MessageHop& hop) {
  writer.StartObject();
  if (hop.type != HopType::Current) {
    key(writer, "ty");
    writer.Int(static_cast<int>(hop.type));
  }
  if (hop.causation_id) {
    key(writer, "ca");
    uuid(writer, hop.causation_id->uuid());
  }
  if (hop.correlation_id) {
    key(writer, "co");
    uuid(writer, hop.correlation_id->uuid());
  }
  if (!hop.causation_type.empty()) {
    key(writer, "ct");
    string(writer, hop.causation_type);
  }
  key(writer, "si");
  writer.StartObject();
  key(writer, "sn");
  string(writer, hop.service_instance.service_name);
  key(writer, "ii");
  uuid(writer, hop.service_instance.instance_id);
  key(writer, "hn");
  string(writer, hop.service_instance.host_name);
  key(writer, "pi");
  writer.Int64(hop.service_instance.process_id);
  writer.EndObject();
  key(writer, "ts");
  writer.Int64(to_micros(hop.timestamp));
  if (!hop.topic.empty()) {
    key(writer, "to");
    string(writer, hop.topic);
  }
  if (hop.stream_id) {
    key(writer, "st");
    uuid(writer, *hop.stream_id);
  }
  if (hop.scope) {
    key(writer, "sc");
    writer.StartObject();
    if (!hop.scope->user_id.empty()) {
      key(writer, "u");
      string(writer, hop.scope->user_id);
    }
    if (!hop.scope->tenant_id.empty()) {
      key(writer, "t");
      string(writer, hop.scope->tenant_id);
    }
    writer.EndObject();
  }
  if (!hop.metadata.empty()) {
    key(writer, "md");
    writer.StartObject();
    for (const auto& [name, value] : hop.metadata) {
      key(writer, name);
      string(writer, value);
    }
    writer.EndObject();
  }
  if (hop.duration) {
    key(writer, "du");
    writer.Int64(hop.duration->count());
  }
  writer.EndObject();
}

void write_record(Writer& writer, const ReceptorInvocationRecord& record) {
  writer.StartObject();
  key(writer, "r");
  string(writer, record.receptor_id);
  key(writer, "s");
  writer.Int(static_cast<int>(record.stage));
  key(writer, "at");
  writer.Int64(to_micros(record.completed_at));
  key(writer, "du");
  writer.Int64(record.duration.count());
  if (!record.service_name.empty()) {
    key(writer, "sn");
    string(writer, record.service_name);
  }
  if (!record.perspective.empty()) {
    key(writer, "pe");
    string(writer, record.perspective);
  }
  writer.EndObject();
}

// ---- reading --------------------------------------------------------------------------------

absl::Status shape_error(std::string_view path, std::string_view expected) {
  return absl::InvalidArgumentError(fmt::format("envelope JSON: {} must be {}", path, expected));
}

const Value* member(const Value& object, std::string_view name) {
  auto it = object.FindMember(
      Value(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

absl::Status read_string(const Value& object, std::string_view name, std::string& out,
                         std::string_view path) {
  const Value* value = member(object, name);
  if (value == nullptr) return absl::OkStatus();
  if (!value->IsString()) return shape_error(fmt::format("{}.{}", path, name), "a string");
  out.assign(value->GetString(), value->GetStringLength());
  return absl::OkStatus();
}

absl::Status read_int64(const Value& object, std::string_view name, std::int64_t& out,
                        std::string_view path, bool required = false) {
  const Value* value = member(object, name);
  if (value == nullptr) {
    return required ? shape_error(fmt::format("{}.{}", path, name), "present") : absl::OkStatus();
  }
  if (!value->IsInt64()) return shape_error(fmt::format("{}.{}", path, name), "an integer");
  out = value->GetInt64();
  return absl::OkStatus();
}

// TimePoint counts nanoseconds in an int64, so only about +/-292 years of microseconds convert;
// beyond that duration_cast overflows (undefined behaviour; in practice a wrapped time that does
// not round-trip). A corrupt "ts"/"at" is therefore a shape error, not a silently wrong time.
absl::Status read_time(const Value& object, std::string_view name, TimePoint& out,
                       std::string_view path) {
  constexpr std::int64_t kMaxMicros =
      std::chrono::duration_cast<std::chrono::microseconds>(TimePoint::duration::max()).count();
  std::int64_t micros = 0;
  if (absl::Status status = read_int64(object, name, micros, path); !status.ok()) return status;
  if (micros > kMaxMicros || micros < -kMaxMicros) {
    return shape_error(fmt::format("{}.{}", path, name),
                       "microseconds within +/-292 years of 1970");
  }
  out = from_micros(micros);
  return absl::OkStatus();
}

absl::StatusOr<Uuid> read_uuid_value(const Value& value, std::string_view path) {
  if (!value.IsString()) return shape_error(path, "a uuid string");
  std::optional<Uuid> id =
      internal::parse_uuid(std::string_view(value.GetString(), value.GetStringLength()));
  if (!id) return shape_error(path, "a uuid string");
  return *id;
}

absl::Status read_optional_id(const Value& object, std::string_view name,
                              std::optional<MessageId>& out, std::string_view path) {
  const Value* value = member(object, name);
  if (value == nullptr || value->IsNull()) return absl::OkStatus();
  absl::StatusOr<Uuid> id = read_uuid_value(*value, fmt::format("{}.{}", path, name));
  if (!id.ok()) return id.status();
  out = MessageId::from_trusted(*id);
  return absl::OkStatus();
}

#define WHIZBANG_RETURN_IF_ERROR(expr) \
  do {                                 \
    absl::Status status_ = (expr);     \
    if (!status_.ok()) return status_; \
  } while (false)

absl::Status read_hop(const Value& json, MessageHop& hop, const std::string& path) {
  if (!json.IsObject()) return shape_error(path, "an object");
  std::int64_t type = 0;
  WHIZBANG_RETURN_IF_ERROR(read_int64(json, "ty", type, path));
  if (type != 0 && type != 1) return shape_error(path + ".ty", "0 or 1");
  hop.type = static_cast<HopType>(type);
  WHIZBANG_RETURN_IF_ERROR(read_optional_id(json, "ca", hop.causation_id, path));
  WHIZBANG_RETURN_IF_ERROR(read_optional_id(json, "co", hop.correlation_id, path));
  WHIZBANG_RETURN_IF_ERROR(read_string(json, "ct", hop.causation_type, path));
  const Value* si = member(json, "si");
  if (si == nullptr || !si->IsObject()) return shape_error(path + ".si", "an object");
  const std::string si_path = path + ".si";
  WHIZBANG_RETURN_IF_ERROR(read_string(*si, "sn", hop.service_instance.service_name, si_path));
  if (const Value* ii = member(*si, "ii")) {
    absl::StatusOr<Uuid> id = read_uuid_value(*ii, si_path + ".ii");
    if (!id.ok()) return id.status();
    hop.service_instance.instance_id = *id;
  }
  WHIZBANG_RETURN_IF_ERROR(read_string(*si, "hn", hop.service_instance.host_name, si_path));
  WHIZBANG_RETURN_IF_ERROR(read_int64(*si, "pi", hop.service_instance.process_id, si_path));
  WHIZBANG_RETURN_IF_ERROR(read_time(json, "ts", hop.timestamp, path));
  WHIZBANG_RETURN_IF_ERROR(read_string(json, "to", hop.topic, path));
  if (const Value* st = member(json, "st"); st != nullptr && !st->IsNull()) {
    absl::StatusOr<Uuid> id = read_uuid_value(*st, path + ".st");
    if (!id.ok()) return id.status();
    hop.stream_id = *id;
  }
  if (const Value* sc = member(json, "sc"); sc != nullptr && !sc->IsNull()) {
    if (!sc->IsObject()) return shape_error(path + ".sc", "an object");
    SecurityScope scope;
    WHIZBANG_RETURN_IF_ERROR(read_string(*sc, "u", scope.user_id, path + ".sc"));
    WHIZBANG_RETURN_IF_ERROR(read_string(*sc, "t", scope.tenant_id, path + ".sc"));
    hop.scope = std::move(scope);
  }
  if (const Value* md = member(json, "md"); md != nullptr && !md->IsNull()) {
    if (!md->IsObject()) return shape_error(path + ".md", "an object");
    for (auto it = md->MemberBegin(); it != md->MemberEnd(); ++it) {
      if (!it->value.IsString()) return shape_error(path + ".md values", "strings");
      hop.metadata.emplace(std::string(it->name.GetString(), it->name.GetStringLength()),
                           std::string(it->value.GetString(), it->value.GetStringLength()));
    }
  }
  if (member(json, "du") != nullptr) {
    std::int64_t micros = 0;
    WHIZBANG_RETURN_IF_ERROR(read_int64(json, "du", micros, path));
    hop.duration = std::chrono::microseconds(micros);
  }
  return absl::OkStatus();
}

absl::Status read_record(const Value& json, ReceptorInvocationRecord& record,
                         const std::string& path) {
  if (!json.IsObject()) return shape_error(path, "an object");
  std::string receptor_id;
  WHIZBANG_RETURN_IF_ERROR(read_string(json, "r", receptor_id, path));
  record.receptor_id = std::move(receptor_id);
  std::int64_t stage = 0;
  WHIZBANG_RETURN_IF_ERROR(read_int64(json, "s", stage, path, /*required=*/true));
  if (stage < -1 || stage > static_cast<int>(Stage::PostLifecycleInline)) {
    return shape_error(path + ".s", "a lifecycle stage");
  }
  record.stage = static_cast<Stage>(stage);
  std::int64_t duration = 0;
  WHIZBANG_RETURN_IF_ERROR(read_time(json, "at", record.completed_at, path));
  WHIZBANG_RETURN_IF_ERROR(read_int64(json, "du", duration, path));
  record.duration = std::chrono::microseconds(duration);
  WHIZBANG_RETURN_IF_ERROR(read_string(json, "sn", record.service_name, path));
  WHIZBANG_RETURN_IF_ERROR(read_string(json, "pe", record.perspective, path));
  return absl::OkStatus();
}

absl::Status parse_document(std::string_view json, rapidjson::Document& document) {
  // Bounded: an unbounded recursive parse let a corrupt envelope of a few hundred thousand '['
  // overflow the stack (a crash, not an error status).
  const rapidjson::ParseResult parsed = internal::parse_bounded(json, document);
  if (parsed.IsError()) {
    return absl::InvalidArgumentError(fmt::format("malformed envelope JSON at offset {}: {}",
                                                  parsed.Offset(),
                                                  internal::parse_error_text(parsed)));
  }
  if (!document.IsObject()) return shape_error("$", "an object");
  return absl::OkStatus();
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
    info->write_json(envelope.payload.data(), &writer);
  }
  key(writer, "h");
  writer.StartArray();
  for (const MessageHop& hop : envelope.hops) write_hop(writer, hop);
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
  if (!envelope.receptor_invocations.empty()) {
    key(writer, "ri");
    writer.StartArray();
    for (const ReceptorInvocationRecord& record : envelope.receptor_invocations) {
      write_record(writer, record);
    }
    writer.EndArray();
  }
  if (!envelope.source_service_id.is_nil()) {
    key(writer, "ss");
    uuid(writer, envelope.source_service_id);
  }
  writer.EndObject();
  out.append(buffer.GetString(), buffer.GetSize());
}

std::string serialize_envelope(const Envelope& envelope) {
  std::string out;
  serialize_envelope(envelope, out);
  return out;
}

absl::StatusOr<Envelope> deserialize_envelope(std::string_view json,
                                              MessageTypeResolverRef resolver) {
  rapidjson::Document document;
  WHIZBANG_RETURN_IF_ERROR(parse_document(json, document));
  Envelope envelope;
  std::int64_t version = 1;
  WHIZBANG_RETURN_IF_ERROR(read_int64(document, "v", version, "$"));
  envelope.version = static_cast<int>(version);

  const Value* id = member(document, "id");
  if (id == nullptr) return shape_error("$.id", "present");
  absl::StatusOr<Uuid> message_id = read_uuid_value(*id, "$.id");
  if (!message_id.ok()) return message_id.status();
  envelope.message_id = MessageId::from_trusted(*message_id);

  const Value* type = member(document, "t");
  if (type != nullptr) {
    if (!type->IsString()) return shape_error("$.t", "a string");
    const std::string_view wire_name(type->GetString(), type->GetStringLength());
    const MessageTypeInfo* info = resolver(wire_name);
    if (info == nullptr) {
      return absl::NotFoundError(fmt::format("envelope {}: unknown message type '{}'",
                                             message_id->to_string(), wire_name));
    }
    const Value* payload = member(document, "p");
    if (payload == nullptr) return shape_error("$.p", "present");
    absl::StatusOr<AnyMessage> message = info->from_json_value(payload);
    if (!message.ok()) {
      return absl::InvalidArgumentError(fmt::format("envelope {}: payload {}: {}",
                                                    message_id->to_string(), wire_name,
                                                    std::string(message.status().message())));
    }
    envelope.payload = *std::move(message);
  }

  if (const Value* hops = member(document, "h"); hops != nullptr && !hops->IsNull()) {
    if (!hops->IsArray()) return shape_error("$.h", "an array");
    envelope.hops.resize(hops->Size());
    for (rapidjson::SizeType i = 0; i < hops->Size(); ++i) {
      WHIZBANG_RETURN_IF_ERROR(read_hop((*hops)[i], envelope.hops[i], fmt::format("$.h[{}]", i)));
    }
  }

  if (const Value* dc = member(document, "dc"); dc != nullptr && !dc->IsNull()) {
    if (!dc->IsObject()) return shape_error("$.dc", "an object");
    std::int64_t mode = static_cast<std::int64_t>(DispatchModes::Local);
    std::int64_t source = 0;
    WHIZBANG_RETURN_IF_ERROR(read_int64(*dc, "m", mode, "$.dc"));
    WHIZBANG_RETURN_IF_ERROR(read_int64(*dc, "s", source, "$.dc"));
    if (mode < 0 || mode > 7) return shape_error("$.dc.m", "a dispatch mode");
    if (source < 0 || source > 2) return shape_error("$.dc.s", "a message source");
    envelope.dispatch_context.mode = static_cast<DispatchModes>(mode);
    envelope.dispatch_context.source = static_cast<MessageSource>(source);
    if (const Value* d = member(*dc, "d")) {
      if (!d->IsBool()) return shape_error("$.dc.d", "a bool");
      envelope.dispatch_context.is_default_dispatch = d->GetBool();
    }
  } else {
    // A reference v1 envelope without a dispatch context came through the outbox.
    envelope.dispatch_context.mode = DispatchModes::Outbox;
    envelope.dispatch_context.source = MessageSource::Local;
  }

  if (const Value* ri = member(document, "ri"); ri != nullptr && !ri->IsNull()) {
    if (!ri->IsArray()) return shape_error("$.ri", "an array");
    envelope.receptor_invocations.resize(ri->Size());
    for (rapidjson::SizeType i = 0; i < ri->Size(); ++i) {
      WHIZBANG_RETURN_IF_ERROR(
          read_record((*ri)[i], envelope.receptor_invocations[i], fmt::format("$.ri[{}]", i)));
    }
  }

  if (const Value* ss = member(document, "ss"); ss != nullptr && !ss->IsNull()) {
    absl::StatusOr<Uuid> source = read_uuid_value(*ss, "$.ss");
    if (!source.ok()) return source.status();
    envelope.source_service_id = *source;
  }
  return envelope;
}

absl::StatusOr<std::string> peek_envelope_type(std::string_view json) {
  rapidjson::Document document;
  WHIZBANG_RETURN_IF_ERROR(parse_document(json, document));
  const Value* type = member(document, "t");
  if (type == nullptr || !type->IsString()) return shape_error("$.t", "a string");
  return std::string(type->GetString(), type->GetStringLength());
}

}  // namespace whizbang
