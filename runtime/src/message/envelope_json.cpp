#include "whizbang/message/envelope_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>

#include "fmt/format.h"
#include "whizbang/internal/text.hpp"
#include "dotnet_time.hpp"
#include "whizbang/message/envelope_parse_memo.hpp"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/message/json_codec.hpp"

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

constexpr std::string_view kAggregateId = "AggregateId";
const std::string kAggregateIdKey(kAggregateId);

void key(Writer& writer, std::string_view name) {
  writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}
void string(Writer& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}
void uuid(Writer& writer, const Uuid& id) { internal::write_uuid_string(writer, id); }

// A hop's scope as a .NET ScopeDelta (docs/guide/16-security.md): values under "v" (the tenant
// and user as "Sc", the principals as "Ac"/"Ef", the kind as "Ty"), collections under "c" as
// full replacements ("s"), claims as additions ("a"). Defaults are left out, so a plain
// user-and-tenant scope is {"v":{"Sc":{"t":…,"u":…}}}, exactly what .NET writes for one.
void write_string_array(Writer& writer, const std::vector<std::string>& values) {
  writer.StartArray();
  for (const std::string& value : values) string(writer, value);
  writer.EndArray();
}

void write_scope(Writer& writer, const SecurityScope& scope) {
  key(writer, "sc");
  writer.StartObject();
  key(writer, "v");
  writer.StartObject();
  key(writer, "Sc");
  writer.StartObject();
  if (!scope.tenant_id.empty()) {
    key(writer, "t");
    string(writer, scope.tenant_id);
  }
  if (!scope.user_id.empty()) {
    key(writer, "u");
    string(writer, scope.user_id);
  }
  writer.EndObject();
  if (!scope.actual_principal.empty()) {
    key(writer, "Ac");
    string(writer, scope.actual_principal);
  }
  if (!scope.effective_principal.empty()) {
    key(writer, "Ef");
    string(writer, scope.effective_principal);
  }
  if (scope.type != SecurityContextType::User) {
    key(writer, "Ty");
    writer.Int(static_cast<int>(scope.type));
  }
  writer.EndObject();
  if (!scope.roles.empty() || !scope.permissions.empty() || !scope.claims.empty()) {
    key(writer, "c");
    writer.StartObject();
    for (const auto& [name, values] :
         {std::pair{"Ro", &scope.roles}, std::pair{"Pe", &scope.permissions}}) {
      if (values->empty()) continue;
      key(writer, name);
      writer.StartObject();
      key(writer, "s");
      write_string_array(writer, *values);
      writer.EndObject();
    }
    if (!scope.claims.empty()) {
      key(writer, "Cl");
      writer.StartObject();
      key(writer, "a");
      writer.StartObject();
      for (const auto& [claim, value] : scope.claims) {
        key(writer, claim);
        string(writer, value);
      }
      writer.EndObject();
      writer.EndObject();
    }
    writer.EndObject();
  }
  writer.EndObject();
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
  std::string text;
  dotnet_time::append_timestamp(text, hop.timestamp);
  string(writer, text);
  if (!hop.topic.empty()) {
    key(writer, "to");
    string(writer, hop.topic);
  }
  if (hop.stream_id) {
    key(writer, "st");
    uuid(writer, *hop.stream_id);
  }
  if (hop.scope) write_scope(writer, *hop.scope);
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
    text.clear();
    dotnet_time::append_timespan(text, *hop.duration);
    string(writer, text);
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

// A hop member by its short name, or by the long (legacy PascalCase) name .NET also reads.
const Value* member(const Value& object, std::string_view name, std::string_view long_name) {
  const Value* value = member(object, name);
  return value != nullptr ? value : member(object, long_name);
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
                       std::string_view path, std::string_view long_name = {}) {
  constexpr std::int64_t kMaxMicros =
      std::chrono::duration_cast<std::chrono::microseconds>(TimePoint::duration::max()).count();
  const Value* value = long_name.empty() ? member(object, name) : member(object, name, long_name);
  if (value == nullptr) return absl::OkStatus();
  // Whizbang .NET (and this runtime since schema 1.1) write an ISO-8601 string with an offset;
  // integer microseconds are what earlier envelopes of this runtime hold.
  if (value->IsString()) {
    std::optional<TimePoint> time = dotnet_time::parse_timestamp(
        std::string_view(value->GetString(), value->GetStringLength()));
    if (!time) {
      return shape_error(fmt::format("{}.{}", path, name),
                         "an ISO-8601 time such as 2026-03-09T17:30:01.693249+00:00");
    }
    out = *time;
    return absl::OkStatus();
  }
  if (!value->IsInt64()) {
    return shape_error(fmt::format("{}.{}", path, name), "an ISO-8601 string or an integer");
  }
  const std::int64_t micros = value->GetInt64();
  if (micros > kMaxMicros || micros < -kMaxMicros) {
    return shape_error(fmt::format("{}.{}", path, name),
                       "microseconds within +/-292 years of 1970");
  }
  out = from_micros(micros);
  return absl::OkStatus();
}

// A hop duration: a .NET TimeSpan string ("00:00:01.5000000") or integer microseconds (earlier
// envelopes of this runtime).
absl::Status read_duration(const Value& value, std::optional<std::chrono::microseconds>& out,
                           std::string_view path) {
  if (value.IsInt64()) {
    out = std::chrono::microseconds(value.GetInt64());
    return absl::OkStatus();
  }
  if (value.IsString()) {
    out = dotnet_time::parse_timespan(std::string_view(value.GetString(), value.GetStringLength()));
    if (out) return absl::OkStatus();
  }
  return shape_error(path, "a TimeSpan string such as 00:00:01.5000000, or an integer");
}

absl::StatusOr<Uuid> read_uuid_value(const Value& value, std::string_view path) {
  if (!value.IsString()) return shape_error(path, "a uuid string");
  std::optional<Uuid> id =
      internal::parse_uuid(std::string_view(value.GetString(), value.GetStringLength()));
  if (!id) return shape_error(path, "a uuid string");
  return *id;
}

#define WHIZBANG_RETURN_IF_ERROR(expr) \
  do {                                 \
    absl::Status status_ = (expr);     \
    if (!status_.ok()) return status_; \
  } while (false)

absl::Status read_text(const Value& object, std::string_view name, std::string_view long_name,
                       std::string& out, std::string_view path) {
  const Value* value = member(object, name, long_name);
  if (value == nullptr || value->IsNull()) return absl::OkStatus();
  if (!value->IsString()) return shape_error(fmt::format("{}.{}", path, name), "a string");
  out.assign(value->GetString(), value->GetStringLength());
  return absl::OkStatus();
}

absl::Status read_string_array(const Value& json, std::vector<std::string>& out,
                               const std::string& path) {
  if (!json.IsArray()) return shape_error(path, "an array of strings");
  for (const Value& item : json.GetArray()) {
    if (!item.IsString()) return shape_error(path, "an array of strings");
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return absl::OkStatus();
}

// One ScopeDelta collection change, applied to what is set so far: "s" replaces, "a" adds,
// "r" removes.
absl::Status apply_collection(const Value& change, std::vector<std::string>& values,
                              const std::string& path) {
  if (!change.IsObject()) return shape_error(path, "an object");
  if (const Value* set = member(change, "s"); set != nullptr && !set->IsNull()) {
    values.clear();
    WHIZBANG_RETURN_IF_ERROR(read_string_array(*set, values, path + ".s"));
  }
  if (const Value* add = member(change, "a"); add != nullptr && !add->IsNull()) {
    std::vector<std::string> added;
    WHIZBANG_RETURN_IF_ERROR(read_string_array(*add, added, path + ".a"));
    for (std::string& value : added) {
      if (std::find(values.begin(), values.end(), value) == values.end()) {
        values.push_back(std::move(value));
      }
    }
  }
  if (const Value* remove = member(change, "r"); remove != nullptr && !remove->IsNull()) {
    std::vector<std::string> removed;
    WHIZBANG_RETURN_IF_ERROR(read_string_array(*remove, removed, path + ".r"));
    std::erase_if(values, [&](const std::string& value) {
      return std::find(removed.begin(), removed.end(), value) != removed.end();
    });
  }
  return absl::OkStatus();
}

absl::Status apply_claims(const Value& change, std::map<std::string, std::string>& claims,
                          const std::string& path) {
  if (!change.IsObject()) return shape_error(path, "an object");
  for (const char* name : {"s", "a"}) {
    const Value* set = member(change, name);
    if (set == nullptr || set->IsNull()) continue;
    if (!set->IsObject()) return shape_error(path + "." + name, "an object of strings");
    if (std::string_view(name) == "s") claims.clear();
    for (auto it = set->MemberBegin(); it != set->MemberEnd(); ++it) {
      if (!it->value.IsString()) return shape_error(path + "." + name, "an object of strings");
      claims[std::string(it->name.GetString(), it->name.GetStringLength())] =
          std::string(it->value.GetString(), it->value.GetStringLength());
    }
  }
  if (const Value* remove = member(change, "r"); remove != nullptr && !remove->IsNull()) {
    std::vector<std::string> removed;
    WHIZBANG_RETURN_IF_ERROR(read_string_array(*remove, removed, path + ".r"));
    for (const std::string& claim : removed) claims.erase(claim);
  }
  return absl::OkStatus();
}

absl::Status read_optional_text(const Value& value, std::string& out, const std::string& path) {
  if (value.IsNull()) return absl::OkStatus();
  if (!value.IsString()) return shape_error(path, "a string");
  out.assign(value.GetString(), value.GetStringLength());
  return absl::OkStatus();
}

// The properties a ScopeDelta names, by their short ("Sc") or enum ("Scope") names in any case,
// as .NET reads them.
enum class ScopeProp : std::uint8_t {
  Unknown,
  Scope,
  Actual,
  Effective,
  Type,
  Roles,
  Perms,
  Principals,
  Claims,
};

ScopeProp scope_prop(const Value& name) {
  static constexpr std::pair<std::string_view, ScopeProp> kNames[] = {
      {"sc", ScopeProp::Scope},      {"scope", ScopeProp::Scope},
      {"ac", ScopeProp::Actual},     {"actual", ScopeProp::Actual},
      {"ef", ScopeProp::Effective},  {"effective", ScopeProp::Effective},
      {"ty", ScopeProp::Type},       {"type", ScopeProp::Type},
      {"ro", ScopeProp::Roles},      {"roles", ScopeProp::Roles},
      {"pe", ScopeProp::Perms},      {"perms", ScopeProp::Perms},
      {"pr", ScopeProp::Principals}, {"principals", ScopeProp::Principals},
      {"cl", ScopeProp::Claims},     {"claims", ScopeProp::Claims},
  };
  const std::string_view given(name.GetString(), name.GetStringLength());
  for (const auto& [text, prop] : kNames) {
    if (internal::equals_ignoring_case(given, text)) return prop;
  }
  return ScopeProp::Unknown;
}

struct ScopeMember {
  ScopeProp prop;
  std::string path;
  const Value* value;
};

// The members of a ScopeDelta's "v" or "c" that name a property, each once: "Sc" and "Scope" in
// one delta would be read differently by readers that keep the first and the last.
absl::StatusOr<std::vector<ScopeMember>> scope_members(const Value& object,
                                                       const std::string& path) {
  if (!object.IsObject()) return shape_error(path, "an object");
  std::vector<ScopeMember> members;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    const ScopeProp prop = scope_prop(it->name);
    if (prop == ScopeProp::Unknown || it->value.IsNull()) continue;
    std::string member_path = path + "." + std::string(it->name.GetString());
    for (const ScopeMember& seen : members) {
      if (seen.prop == prop) {
        return shape_error(member_path, "named once (it is there under two names)");
      }
    }
    members.push_back({prop, std::move(member_path), &it->value});
  }
  return members;
}

// A ScopeDelta's "v": the scope (tenant and user), the principals and the kind. `found` tells
// whether it set any of them.
absl::Status apply_scope_values(const Value& values, SecurityScope& scope, bool& found,
                                const std::string& path) {
  absl::StatusOr<std::vector<ScopeMember>> members = scope_members(values, path);
  if (!members.ok()) return members.status();
  for (const auto& [prop, at, value] : *members) {
    switch (prop) {
      case ScopeProp::Scope:
        if (!value->IsObject()) return shape_error(at, "an object");
        WHIZBANG_RETURN_IF_ERROR(read_string(*value, "u", scope.user_id, at));
        WHIZBANG_RETURN_IF_ERROR(read_string(*value, "t", scope.tenant_id, at));
        break;
      case ScopeProp::Actual:
        WHIZBANG_RETURN_IF_ERROR(read_optional_text(*value, scope.actual_principal, at));
        break;
      case ScopeProp::Effective:
        WHIZBANG_RETURN_IF_ERROR(read_optional_text(*value, scope.effective_principal, at));
        break;
      case ScopeProp::Type:
        if (!value->IsInt64() || value->GetInt64() < 0 || value->GetInt64() > 3) {
          return shape_error(at, "a security context type (0 to 3)");
        }
        scope.type = static_cast<SecurityContextType>(value->GetInt64());
        break;
      default:
        continue;  // a collection is changed under "c", not set here
    }
    found = true;
  }
  return absl::OkStatus();
}

// A ScopeDelta's "c": changes to the roles, permissions and claims. `found` as above.
absl::Status apply_scope_changes(const Value& changes, SecurityScope& scope, bool& found,
                                 const std::string& path) {
  absl::StatusOr<std::vector<ScopeMember>> members = scope_members(changes, path);
  if (!members.ok()) return members.status();
  for (const auto& [prop, at, value] : *members) {
    switch (prop) {
      case ScopeProp::Roles:
        WHIZBANG_RETURN_IF_ERROR(apply_collection(*value, scope.roles, at));
        break;
      case ScopeProp::Perms:
        WHIZBANG_RETURN_IF_ERROR(apply_collection(*value, scope.permissions, at));
        break;
      case ScopeProp::Claims:
        WHIZBANG_RETURN_IF_ERROR(apply_claims(*value, scope.claims, at));
        break;
      default:
        // "Pr" (security principals) is not modelled (docs/guide/16-security.md).
        continue;
    }
    found = true;
  }
  return absl::OkStatus();
}

// The security scope of a hop: a .NET ScopeDelta {"v":{…},"c":{…}}, or the flat {"u":…,"t":…} of
// earlier envelopes of this runtime. The delta applies to an empty scope: only the latest hop's
// scope counts (docs/guide/16-security.md).
absl::Status read_scope(const Value& sc, MessageHop& hop, const std::string& path) {
  if (!sc.IsObject()) return shape_error(path, "an object");
  SecurityScope result;
  const Value* values = member(sc, "v");
  const Value* changes = member(sc, "c");
  bool found = values == nullptr && changes == nullptr;
  if (found) {
    WHIZBANG_RETURN_IF_ERROR(read_string(sc, "u", result.user_id, path));
    WHIZBANG_RETURN_IF_ERROR(read_string(sc, "t", result.tenant_id, path));
  } else {
    if (values != nullptr && !values->IsNull()) {
      WHIZBANG_RETURN_IF_ERROR(apply_scope_values(*values, result, found, path + ".v"));
    }
    if (changes != nullptr && !changes->IsNull()) {
      WHIZBANG_RETURN_IF_ERROR(apply_scope_changes(*changes, result, found, path + ".c"));
    }
  }
  if (found) hop.scope = std::move(result);
  return absl::OkStatus();
}

absl::Status read_hop(const Value& json, MessageHop& hop, const std::string& path) {
  if (!json.IsObject()) return shape_error(path, "an object");
  if (const Value* ty = member(json, "ty", "Type"); ty != nullptr) {
    if (!ty->IsInt64() || (ty->GetInt64() != 0 && ty->GetInt64() != 1)) {
      return shape_error(path + ".ty", "0 or 1");
    }
    hop.type = static_cast<HopType>(ty->GetInt64());
  }
  for (const auto& [name, long_name, id] :
       {std::tuple{"ca", "CausationId", &hop.causation_id},
        std::tuple{"co", "CorrelationId", &hop.correlation_id}}) {
    const Value* value = member(json, name, long_name);
    if (value == nullptr || value->IsNull()) continue;
    absl::StatusOr<Uuid> parsed = read_uuid_value(*value, path + "." + name);
    if (!parsed.ok()) return parsed.status();
    *id = MessageId::from_trusted(*parsed);
  }
  WHIZBANG_RETURN_IF_ERROR(read_text(json, "ct", "CausationType", hop.causation_type, path));
  const Value* si = member(json, "si", "ServiceInstance");
  if (si == nullptr || !si->IsObject()) return shape_error(path + ".si", "an object");
  const std::string si_path = path + ".si";
  WHIZBANG_RETURN_IF_ERROR(
      read_text(*si, "sn", "ServiceName", hop.service_instance.service_name, si_path));
  if (const Value* ii = member(*si, "ii", "InstanceId")) {
    absl::StatusOr<Uuid> id = read_uuid_value(*ii, si_path + ".ii");
    if (!id.ok()) return id.status();
    hop.service_instance.instance_id = *id;
  }
  WHIZBANG_RETURN_IF_ERROR(
      read_text(*si, "hn", "HostName", hop.service_instance.host_name, si_path));
  if (const Value* pi = member(*si, "pi", "ProcessId"); pi != nullptr) {
    if (!pi->IsInt64()) return shape_error(si_path + ".pi", "an integer");
    hop.service_instance.process_id = pi->GetInt64();
  }
  WHIZBANG_RETURN_IF_ERROR(read_time(json, "ts", hop.timestamp, path, "Timestamp"));
  WHIZBANG_RETURN_IF_ERROR(read_text(json, "to", "Topic", hop.topic, path));
  // "st" is a free-form stream key for .NET: a uuid is our stream id, anything else is not ours.
  if (const Value* st = member(json, "st", "StreamId"); st != nullptr && !st->IsNull()) {
    if (!st->IsString()) return shape_error(path + ".st", "a string");
    hop.stream_id = internal::parse_uuid(std::string_view(st->GetString(), st->GetStringLength()));
  }
  if (const Value* sc = member(json, "sc", "Scope"); sc != nullptr && !sc->IsNull()) {
    WHIZBANG_RETURN_IF_ERROR(read_scope(*sc, hop, path + ".sc"));
  }
  if (const Value* md = member(json, "md", "Metadata"); md != nullptr && !md->IsNull()) {
    if (!md->IsObject()) return shape_error(path + ".md", "an object");
    for (auto it = md->MemberBegin(); it != md->MemberEnd(); ++it) {
      const std::string_view name(it->name.GetString(), it->name.GetStringLength());
      if (name == kAggregateId && it->value.IsString()) {
        // The stream id, as .NET carries it; ours when "st" did not already say.
        std::optional<Uuid> aggregate = internal::parse_uuid(
            std::string_view(it->value.GetString(), it->value.GetStringLength()));
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
    WHIZBANG_RETURN_IF_ERROR(read_duration(*du, hop.duration, path + ".du"));
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
  const rapidjson::Document& document = **parsed;
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
  const Value* payload = member(document, "p");
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
    if (hops->Size() > limits.max_hops) {
      return absl::InvalidArgumentError(fmt::format("envelope {}: {} hops, over the limit of {}",
                                                    message_id->to_string(), hops->Size(),
                                                    limits.max_hops));
    }
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
    if (ri->Size() > limits.max_receptor_invocations) {
      return absl::InvalidArgumentError(
          fmt::format("envelope {}: {} receptor invocation records, over the limit of {}",
                      message_id->to_string(), ri->Size(), limits.max_receptor_invocations));
    }
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
  rapidjson::Document scratch;
  absl::StatusOr<const rapidjson::Document*> document = parse_document(json, scratch);
  if (!document.ok()) return document.status();
  const Value* type = member(**document, "t");
  if (type == nullptr || !type->IsString()) return shape_error("$.t", "a string");
  return std::string(type->GetString(), type->GetStringLength());
}

}  // namespace whizbang
