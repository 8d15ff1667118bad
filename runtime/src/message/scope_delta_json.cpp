// A hop's security scope in the envelope JSON: the .NET ScopeDelta form, written and read.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "envelope_json_parts.hpp"
#include "fmt/format.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang::envelope_json {
namespace {

void write_string_array(Writer& writer, const std::vector<std::string>& values) {
  writer.StartArray();
  for (const std::string& value : values) string(writer, value);
  writer.EndArray();
}

// One ScopeDelta collection change, applied to what is set so far: "s" replaces, "a" adds,
// "r" removes.
absl::Status apply_collection(const Value& change, std::vector<std::string>& values,
                              const std::string& path) {
  if (!change.IsObject()) return shape_error(path, "an object");
  if (const Value* set = member(change, "s"); set != nullptr && !set->IsNull()) {
    values.clear();
    WB_RETURN_IF_ERROR(read_string_array(*set, values, path + ".s"));
  }
  if (const Value* add = member(change, "a"); add != nullptr && !add->IsNull()) {
    std::vector<std::string> added;
    WB_RETURN_IF_ERROR(read_string_array(*add, added, path + ".a"));
    for (std::string& value : added) {
      if (std::find(values.begin(), values.end(), value) == values.end()) {
        values.push_back(std::move(value));
      }
    }
  }
  if (const Value* remove = member(change, "r"); remove != nullptr && !remove->IsNull()) {
    std::vector<std::string> removed;
    WB_RETURN_IF_ERROR(read_string_array(*remove, removed, path + ".r"));
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
    WB_RETURN_IF_ERROR(read_string_array(*remove, removed, path + ".r"));
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
    if (absl::EqualsIgnoreCase(internal::absl_view(given), internal::absl_view(text))) return prop;
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
        WB_RETURN_IF_ERROR(read_string(*value, "u", scope.user_id, at));
        WB_RETURN_IF_ERROR(read_string(*value, "t", scope.tenant_id, at));
        break;
      case ScopeProp::Actual:
        WB_RETURN_IF_ERROR(read_optional_text(*value, scope.actual_principal, at));
        break;
      case ScopeProp::Effective:
        WB_RETURN_IF_ERROR(read_optional_text(*value, scope.effective_principal, at));
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
        WB_RETURN_IF_ERROR(apply_collection(*value, scope.roles, at));
        break;
      case ScopeProp::Perms:
        WB_RETURN_IF_ERROR(apply_collection(*value, scope.permissions, at));
        break;
      case ScopeProp::Claims:
        WB_RETURN_IF_ERROR(apply_claims(*value, scope.claims, at));
        break;
      default:
        // "Pr" (security principals) is not modelled (docs/guide/16-security.md).
        continue;
    }
    found = true;
  }
  return absl::OkStatus();
}

}  // namespace

// A hop's scope as a .NET ScopeDelta (docs/guide/16-security.md): values under "v" (the tenant
// and user as "Sc", the principals as "Ac"/"Ef", the kind as "Ty"), collections under "c" as
// full replacements ("s"), claims as additions ("a"). Defaults are left out, so a plain
// user-and-tenant scope is {"v":{"Sc":{"t":…,"u":…}}}, exactly what .NET writes for one.
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
    WB_RETURN_IF_ERROR(read_string(sc, "u", result.user_id, path));
    WB_RETURN_IF_ERROR(read_string(sc, "t", result.tenant_id, path));
  } else {
    if (values != nullptr && !values->IsNull()) {
      WB_RETURN_IF_ERROR(apply_scope_values(*values, result, found, path + ".v"));
    }
    if (changes != nullptr && !changes->IsNull()) {
      WB_RETURN_IF_ERROR(apply_scope_changes(*changes, result, found, path + ".c"));
    }
  }
  if (found) hop.scope = std::move(result);
  return absl::OkStatus();
}

}  // namespace whizbang::envelope_json
