// A hop and a receptor invocation record in the envelope JSON, written and read.
#include <string>
#include <tuple>
#include <utility>

#include "dotnet_time.hpp"
#include "envelope_json_parts.hpp"
#include "fmt/format.h"

namespace whizbang::envelope_json {
namespace {

const std::string kAggregateIdKey(kAggregateId);

}  // namespace

void write_hop(Writer& writer, const MessageHop& hop, ScopeFold& fold) {
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
  string(writer, dotnet_time::timestamp_text(hop.timestamp).view());
  if (!hop.topic.empty()) {
    key(writer, "to");
    string(writer, hop.topic);
  }
  if (hop.stream_id) {
    key(writer, "st");
    uuid(writer, *hop.stream_id);
  }
  if (hop.scope) write_scope(writer, *hop.scope, fold.base(hop));
  fold.take(hop);
  // The stream id also travels as metadata "AggregateId", where .NET receivers look for it
  // (unless the metadata holds an "AggregateId" of its own, read from an envelope whose two
  // disagreed: kept as it was).
  const bool aggregate_from_stream = hop.stream_id && !hop.metadata.contains(kAggregateIdKey);
  if (aggregate_from_stream || !hop.metadata.empty()) {
    key(writer, "md");
    writer.StartObject();
    if (aggregate_from_stream) {
      key(writer, kAggregateId);
      uuid(writer, *hop.stream_id);
    }
    for (const auto& [name, value] : hop.metadata) {
      key(writer, name);
      string(writer, value);
    }
    writer.EndObject();
  }
  if (hop.duration) {
    key(writer, "du");
    string(writer, dotnet_time::timespan_text(*hop.duration).view());
  }
  // Written only when there is one, as .NET does (`tp` is omitted when null).
  if (!hop.trace_parent.empty()) {
    key(writer, "tp");
    string(writer, hop.trace_parent);
  }
  writer.EndObject();
}

// In .NET's ReceptorInvocationRecord shape ("rin" items), which requires all of r, s, at, du and
// sn: an ISO-8601 "at", a TimeSpan "du" and "sn" even when empty. "pe" is this runtime's own
// (.NET skips it).
void write_record(Writer& writer, const ReceptorInvocationRecord& record) {
  writer.StartObject();
  key(writer, "r");
  string(writer, record.receptor_id);
  key(writer, "s");
  writer.Int(static_cast<int>(record.stage));
  key(writer, "at");
  string(writer, dotnet_time::timestamp_text(record.completed_at).view());
  key(writer, "du");
  string(writer, dotnet_time::timespan_text(record.duration).view());
  key(writer, "sn");
  string(writer, record.service_name);
  if (!record.perspective.empty()) {
    key(writer, "pe");
    string(writer, record.perspective);
  }
  writer.EndObject();
}

absl::Status read_hop(const Value& object, MessageHop& hop, const JsonPath& path, ScopeFold& fold) {
  if (!object.IsObject()) return shape_error(path, "an object");
  const Members json(object);
  if (const Value* ty = member(json, "ty", "Type"); ty != nullptr) {
    if (!ty->IsInt64() || (ty->GetInt64() != 0 && ty->GetInt64() != 1)) {
      return shape_error(path.member("ty"), "0 or 1");
    }
    hop.type = static_cast<HopType>(ty->GetInt64());
  }
  for (const auto& [name, long_name, id] :
       {std::tuple{"ca", "CausationId", &hop.causation_id},
        std::tuple{"co", "CorrelationId", &hop.correlation_id}}) {
    const Value* value = member(json, name, long_name);
    if (value == nullptr || value->IsNull()) continue;
    absl::StatusOr<Uuid> parsed = read_uuid_value(*value, path.member(name));
    if (!parsed.ok()) return parsed.status();
    *id = MessageId::from_trusted(*parsed);
  }
  WB_RETURN_IF_ERROR(read_text(json, "ct", "CausationType", hop.causation_type, path));
  const Value* si_object = member(json, "si", "ServiceInstance");
  const JsonPath si_path = path.member("si");
  if (si_object == nullptr || !si_object->IsObject()) return shape_error(si_path, "an object");
  const Members si(*si_object);
  WB_RETURN_IF_ERROR(
      read_text(si, "sn", "ServiceName", hop.service_instance.service_name, si_path));
  if (const Value* ii = member(si, "ii", "InstanceId")) {
    absl::StatusOr<Uuid> id = read_uuid_value(*ii, si_path.member("ii"));
    if (!id.ok()) return id.status();
    hop.service_instance.instance_id = *id;
  }
  WB_RETURN_IF_ERROR(read_text(si, "hn", "HostName", hop.service_instance.host_name, si_path));
  if (const Value* pi = member(si, "pi", "ProcessId"); pi != nullptr) {
    if (!pi->IsInt64()) return shape_error(si_path.member("pi"), "an integer");
    hop.service_instance.process_id = pi->GetInt64();
  }
  WB_RETURN_IF_ERROR(read_time(json, "ts", hop.timestamp, path, "Timestamp"));
  WB_RETURN_IF_ERROR(read_text(json, "to", "Topic", hop.topic, path));
  // "st" is a free-form stream key for .NET: a uuid is our stream id, anything else is not ours.
  std::string_view stream_text;
  if (const Value* st = member(json, "st", "StreamId"); st != nullptr && !st->IsNull()) {
    if (!st->IsString()) return shape_error(path.member("st"), "a string");
    stream_text = std::string_view(st->GetString(), st->GetStringLength());
    hop.stream_id = internal::parse_uuid(stream_text);
  }
  if (const Value* sc = member(json, "sc", "Scope"); sc != nullptr && !sc->IsNull()) {
    WB_RETURN_IF_ERROR(read_scope(*sc, hop, path.member("sc"), fold.base(hop)));
  }
  fold.take(hop);
  if (const Value* md = member(json, "md", "Metadata"); md != nullptr && !md->IsNull()) {
    if (!md->IsObject()) return shape_error(path.member("md"), "an object");
    for (auto it = md->MemberBegin(); it != md->MemberEnd(); ++it) {
      const std::string_view name(it->name.GetString(), it->name.GetStringLength());
      if (name == kAggregateId && it->value.IsString()) {
        // The stream id, as .NET carries it; ours when "st" did not already say. Most often the
        // same text as "st" (.NET writes both), read once above.
        const std::string_view aggregate_text(it->value.GetString(), it->value.GetStringLength());
        std::optional<Uuid> aggregate = !stream_text.empty() && aggregate_text == stream_text
                                            ? hop.stream_id
                                            : internal::parse_uuid(aggregate_text);
        if (aggregate && !hop.stream_id) hop.stream_id = aggregate;
        if (aggregate && hop.stream_id == aggregate) continue;
      }
      // .NET metadata values may be any JSON: kept as their JSON text when not a string.
      std::string value;
      if (it->value.IsString()) {
        value.assign(it->value.GetString(), it->value.GetStringLength());
      } else {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> text(buffer);
        it->value.Accept(text);
        value.assign(buffer.GetString(), buffer.GetSize());
      }
      hop.metadata.emplace(std::string(name), std::move(value));
    }
  }
  if (const Value* du = member(json, "du", "Duration"); du != nullptr && !du->IsNull()) {
    WB_RETURN_IF_ERROR(read_duration(*du, hop.duration, path.member("du")));
  }
  // A traceparent is advice, never a reason to refuse a message: a non-string `tp`, or one far
  // longer than any traceparent (55 characters), is dropped here; a malformed string is kept on
  // the hop, and the tracer ignores it (and counts it).
  if (const Value* tp = member(json, "tp", "TraceParent"); tp != nullptr && tp->IsString()) {
    constexpr rapidjson::SizeType kMaxTraceParent = 256;
    if (tp->GetStringLength() <= kMaxTraceParent) {
      hop.trace_parent.assign(tp->GetString(), tp->GetStringLength());
    }
  }
  return absl::OkStatus();
}

absl::Status read_record(const Value& object, ReceptorInvocationRecord& record,
                         const JsonPath& path) {
  if (!object.IsObject()) return shape_error(path, "an object");
  const Members json(object);
  std::string receptor_id;
  WB_RETURN_IF_ERROR(read_string(json, "r", receptor_id, path));
  record.receptor_id = std::move(receptor_id);
  std::int64_t stage = 0;
  WB_RETURN_IF_ERROR(read_int64(json, "s", stage, path, /*required=*/true));
  if (stage < -1 || stage > static_cast<int>(Stage::PostLifecycleInline)) {
    return shape_error(path.member("s"), "a lifecycle stage");
  }
  record.stage = static_cast<Stage>(stage);
  WB_RETURN_IF_ERROR(read_time(json, "at", record.completed_at, path));
  // A TimeSpan string ("rin", as .NET writes it) or integer microseconds ("ri", earlier versions).
  if (const Value* du = member(json, "du"); du != nullptr && !du->IsNull()) {
    std::optional<std::chrono::microseconds> duration;
    WB_RETURN_IF_ERROR(read_duration(*du, duration, path.member("du")));
    record.duration = *duration;
  }
  WB_RETURN_IF_ERROR(read_string(json, "sn", record.service_name, path));
  WB_RETURN_IF_ERROR(read_string(json, "pe", record.perspective, path));
  return absl::OkStatus();
}

}  // namespace whizbang::envelope_json
