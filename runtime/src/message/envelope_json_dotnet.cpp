// The envelope members shared with Whizbang .NET that arrived after the first ones: receptor
// invocation records under "rin" and the members a .NET sender writes that this runtime only
// carries (docs/guide/15-dotnet-services.md, "What each side ignores").
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "dotnet_time.hpp"
#include "envelope_json_parts.hpp"
#include "fmt/format.h"

namespace whizbang::envelope_json {
namespace {

// `value` as compact JSON text.
std::string json_text(const Value& value) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

// One member: absent and null leave `out` empty (.NET writes no nulls for these).
const Value* present(const Members& document, std::string_view name) {
  const Value* value = member(document, name);
  return value == nullptr || value->IsNull() ? nullptr : value;
}

absl::Status read_uuid_member(const Members& document, std::string_view name,
                              std::optional<Uuid>& out) {
  const Value* value = present(document, name);
  if (value == nullptr) return absl::OkStatus();
  absl::StatusOr<Uuid> id = read_uuid_value(*value, JsonPath("$").member(name));
  if (!id.ok()) return id.status();
  out = *id;
  return absl::OkStatus();
}

absl::Status read_int_member(const Members& document, std::string_view name,
                             std::optional<std::int64_t>& out) {
  const Value* value = present(document, name);
  if (value == nullptr) return absl::OkStatus();
  if (!value->IsInt64()) return shape_error(JsonPath("$").member(name), "an integer");
  out = value->GetInt64();
  return absl::OkStatus();
}

// Whether write_record(record) writes `item` back as it came: the same members in the same order,
// each holding what the writer writes for it. The same answer as writing the record and `item`
// out and comparing the texts (both are the compact text of decoded values), without building
// either text.
bool writes_back_as_received(const Value& item, const ReceptorInvocationRecord& record) {
  const bool has_perspective = !record.perspective.empty();
  if (!item.IsObject() || item.MemberCount() != (has_perspective ? 6u : 5u)) return false;
  auto it = item.MemberBegin();
  auto is_text = [](const Value& value, std::string_view text) {
    return value.IsString() && std::string_view(value.GetString(), value.GetStringLength()) == text;
  };
  // One member: its name, then whether its value is what write_record writes.
  auto next = [&](std::string_view name) -> const Value* {
    const Value* value = is_text(it->name, name) ? &it->value : nullptr;
    ++it;
    return value;
  };
  const Value* value = next("r");
  if (value == nullptr || !is_text(*value, record.receptor_id.view())) return false;
  value = next("s");
  if (value == nullptr || !value->IsInt() || value->GetInt() != static_cast<int>(record.stage)) {
    return false;
  }
  value = next("at");
  if (value == nullptr ||
      !is_text(*value, dotnet_time::timestamp_text(record.completed_at).view())) {
    return false;
  }
  value = next("du");
  if (value == nullptr || !is_text(*value, dotnet_time::timespan_text(record.duration).view())) {
    return false;
  }
  value = next("sn");
  if (value == nullptr || !is_text(*value, record.service_name)) return false;
  if (!has_perspective) return true;
  value = next("pe");
  return value != nullptr && is_text(*value, record.perspective);
}

absl::Status read_record_array(const Members& document, std::string_view name, Envelope& envelope,
                               std::size_t max_records) {
  const Value* records = present(document, name);
  if (records == nullptr) return absl::OkStatus();
  const JsonPath root = "$";
  const JsonPath path = root.member(name);
  if (!records->IsArray()) return shape_error(path, "an array");
  if (envelope.receptor_invocations.size() + records->Size() > max_records) {
    return absl::InvalidArgumentError(
        fmt::format("envelope {}: {} receptor invocation records, over the limit of {}",
                    envelope.message_id.to_string(),
                    envelope.receptor_invocations.size() + records->Size(), max_records));
  }
  const bool from_dotnet = name == "rin";
  for (rapidjson::SizeType i = 0; i < records->Size(); ++i) {
    const Value& item = (*records)[i];
    ReceptorInvocationRecord& record = envelope.receptor_invocations.emplace_back();
    WB_RETURN_IF_ERROR(read_record(item, record, path.at(i)));
    if (!from_dotnet) continue;
    // Written back as it came when writing it anew would change it (a .NET sender's 100 ns
    // ticks, another offset, a member this runtime does not know).
    if (!writes_back_as_received(item, record)) record.received_json = json_text(item);
  }
  return absl::OkStatus();
}

}  // namespace

void write_records(Writer& writer, const Envelope& envelope) {
  if (envelope.receptor_invocations.empty()) return;
  // "rin", where Whizbang .NET reads them (MessageEnvelope.ReceptorInvocations), in its shape.
  key(writer, "rin");
  writer.StartArray();
  for (const ReceptorInvocationRecord& record : envelope.receptor_invocations) {
    if (record.received_json.empty()) {
      write_record(writer, record);
    } else {
      writer.RawValue(record.received_json.data(),
                      static_cast<rapidjson::SizeType>(record.received_json.size()),
                      rapidjson::kObjectType);
    }
  }
  writer.EndArray();
}

void write_dotnet_members(Writer& writer, const DotNetEnvelopeMembers& members) {
  if (members.source_service_id) {
    key(writer, "sid");
    uuid(writer, *members.source_service_id);
  }
  if (members.source_commit_sequence) {
    key(writer, "sseq");
    writer.Int64(*members.source_commit_sequence);
  }
  if (members.caused_by_service_id) {
    key(writer, "cbid");
    uuid(writer, *members.caused_by_service_id);
  }
  if (members.caused_by_commit_sequence) {
    key(writer, "cbseq");
    writer.Int64(*members.caused_by_commit_sequence);
  }
  if (members.target) {
    key(writer, "tgt");
    string(writer, *members.target);
  }
  if (members.state_only) {
    key(writer, "sto");
    writer.Bool(*members.state_only);
  }
  if (members.priority) {
    key(writer, "pri");
    writer.Int64(*members.priority);
  }
}

absl::Status read_records(const Members& document, Envelope& envelope, std::size_t max_records) {
  WB_RETURN_IF_ERROR(read_record_array(document, "ri", envelope, max_records));
  return read_record_array(document, "rin", envelope, max_records);
}

absl::Status read_dotnet_members(const Members& document, DotNetEnvelopeMembers& members) {
  WB_RETURN_IF_ERROR(read_uuid_member(document, "sid", members.source_service_id));
  WB_RETURN_IF_ERROR(read_int_member(document, "sseq", members.source_commit_sequence));
  WB_RETURN_IF_ERROR(read_uuid_member(document, "cbid", members.caused_by_service_id));
  WB_RETURN_IF_ERROR(read_int_member(document, "cbseq", members.caused_by_commit_sequence));
  if (const Value* tgt = present(document, "tgt")) {
    if (!tgt->IsString()) return shape_error("$.tgt", "a string");
    members.target.emplace(tgt->GetString(), tgt->GetStringLength());
  }
  if (const Value* sto = present(document, "sto")) {
    if (!sto->IsBool()) return shape_error("$.sto", "a bool");
    members.state_only = sto->GetBool();
  }
  return read_int_member(document, "pri", members.priority);
}

}  // namespace whizbang::envelope_json
