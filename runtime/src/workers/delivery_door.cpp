#include "delivery_door.hpp"

#include <rapidjson/document.h>

#include "fmt/format.h"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/message/envelope_parse_memo.hpp"
#include "whizbang/message/json_codec.hpp"

namespace whizbang {
namespace {

DoorVerdict refuse(RefusalKind kind, std::string reason) {
  DoorVerdict verdict;
  verdict.refused = kind;
  verdict.reason = std::move(reason);
  return verdict;
}

std::string_view string_of(const rapidjson::Value& value) {
  return {value.GetString(), value.GetStringLength()};
}

std::optional<Uuid> uuid_member(const rapidjson::Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return internal::parse_uuid(string_of(it->value));
}

std::size_t array_size(const rapidjson::Value& object, const char* name) {
  auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsArray() ? it->value.Size() : 0;
}

// The sending service and the first hop's stream, as the inbox row keeps them.
void read_routing(const rapidjson::Value& document, DoorVerdict& verdict) {
  // Ours, else what a .NET sender's outbox stamps ("sid"; nil when it has none).
  verdict.source_service =
      uuid_member(document, "ss").value_or(uuid_member(document, "sid").value_or(Uuid()));
  auto hops = document.FindMember("h");
  if (hops == document.MemberEnd() || !hops->value.IsArray() || hops->value.Empty() ||
      !hops->value[0].IsObject()) {
    return;
  }
  const rapidjson::Value& first = hops->value[0];
  verdict.stream_id = uuid_member(first, "st");
  auto metadata = first.FindMember("md");
  if (!verdict.stream_id && metadata != first.MemberEnd() && metadata->value.IsObject()) {
    verdict.stream_id = uuid_member(metadata->value, "AggregateId");
  }
}

// The last hop's valid traceparent (hops read from the last one back).
std::optional<TraceContext> last_trace_parent(const rapidjson::Value& document) {
  auto hops = document.FindMember("h");
  if (hops == document.MemberEnd() || !hops->value.IsArray()) return std::nullopt;
  for (rapidjson::SizeType i = hops->value.Size(); i-- > 0;) {
    const rapidjson::Value& hop = hops->value[i];
    if (!hop.IsObject()) continue;
    auto tp = hop.FindMember("tp");
    if (tp == hop.MemberEnd() || !tp->value.IsString()) continue;
    if (std::optional<TraceContext> context = TraceContext::parse(string_of(tp->value))) {
      return context;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(RefusalKind kind) {
  switch (kind) {
    case RefusalKind::InvalidText:
      return "invalid_text";
    case RefusalKind::InvalidId:
      return "invalid_id";
    case RefusalKind::TooLarge:
      return "too_large";
    case RefusalKind::UnknownType:
      return "unknown_type";
    case RefusalKind::Malformed:
      return "malformed";
    case RefusalKind::IdMismatch:
      return "id_mismatch";
    case RefusalKind::TypeMismatch:
      return "type_mismatch";
    case RefusalKind::OverLimits:
      return "over_limits";
    case RefusalKind::Signature:
      return "signature";
    case RefusalKind::Unstorable:
      return "unstorable";
  }
  return "unknown";
}

bool is_clean_text(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return false;
  }
  return internal::valid_utf8(text);
}

DoorVerdict DeliveryDoor::check(const TransportMessage& delivered) const {
  const std::string_view type = delivered.message_type;
  if (type.empty() || type.size() > kMaxMessageTypeBytes || !is_clean_text(type)) {
    return refuse(RefusalKind::InvalidText,
                  type.size() > kMaxMessageTypeBytes
                      ? fmt::format("its type name is {} bytes long (at most {})", type.size(),
                                    kMaxMessageTypeBytes)
                      : std::string(type.empty() ? "it names no type"
                                                 : "its type name is not valid UTF-8 text"));
  }
  if (!is_v7(delivered.message_id.uuid())) {
    return refuse(RefusalKind::InvalidId,
                  fmt::format("its id {} is not a UUIDv7", delivered.message_id.to_string()));
  }
  const std::string_view json = delivered.envelope_json;
  if (json.size() > limits_.max_bytes) {
    return refuse(RefusalKind::TooLarge, fmt::format("its envelope is {} bytes (at most {})",
                                                     json.size(), limits_.max_bytes));
  }
  DoorVerdict verdict;
  verdict.type = resolver_(type);
  if (verdict.type == nullptr) {
    return refuse(RefusalKind::UnknownType,
                  fmt::format("this service knows no message type '{}'", type));
  }
  // Bounded, strict (UTF-8, unique keys); handled on delivery, the same cycle reads the envelope
  // again: parsed once (envelope_parse_memo.hpp).
  rapidjson::Document scratch;
  internal::BoundedParseResult parsed;
  const rapidjson::Document* read = parsed_envelope(json, scratch, parsed);
  if (read == nullptr || !read->IsObject()) {
    return refuse(RefusalKind::Malformed,
                  read == nullptr ? fmt::format("its envelope is not well-formed JSON ({})",
                                                internal::describe_parse_error(parsed))
                                  : std::string("its envelope is not a JSON object"));
  }
  const rapidjson::Document& document = *read;
  const std::optional<Uuid> envelope_id = uuid_member(document, "id");
  if (!envelope_id) {
    return refuse(RefusalKind::Malformed, document.HasMember("id")
                                              ? "its envelope's id is not a UUID"
                                              : "its envelope has no id");
  }
  if (*envelope_id != delivered.message_id.uuid()) {
    return refuse(RefusalKind::IdMismatch,
                  fmt::format("envelope {} was delivered as message {}", envelope_id->to_string(),
                              delivered.message_id.to_string()));
  }
  if (auto named = document.FindMember("t"); named != document.MemberEnd()) {
    const MessageTypeInfo* body_type =
        named->value.IsString() ? resolver_(string_of(named->value)) : nullptr;
    if (body_type != verdict.type) {
      return refuse(RefusalKind::TypeMismatch,
                    fmt::format("its envelope names another type than '{}'", type));
    }
  }
  if (array_size(document, "h") > limits_.max_hops ||
      array_size(document, "ri") + array_size(document, "rin") > limits_.max_receptor_invocations) {
    return refuse(RefusalKind::OverLimits,
                  fmt::format("its envelope has more than {} hops or {} invocation records",
                              limits_.max_hops, limits_.max_receptor_invocations));
  }
  if (absl::Status admitted = admit_envelope(json, signing_); !admitted.ok()) {
    return refuse(RefusalKind::Signature, std::string(admitted.message()));
  }
  read_routing(document, verdict);
  if (read_trace_parent_) verdict.trace_parent = last_trace_parent(document);
  return verdict;
}

}  // namespace whizbang
