// A hop's security scope read from the envelope JSON: a .NET ScopeDelta applied to the scope
// folded from the earlier hops, as .NET's ScopeDelta.ApplyTo does (docs/guide/16-security.md).
// Written in scope_delta_json.cpp.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "envelope_json_parts.hpp"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang::envelope_json {
namespace {

// .NET's ScopeProp, with its numbers.
enum class ScopeProp : std::uint8_t {
  Scope = 0,
  Roles = 1,
  Perms = 2,
  Principals = 3,
  Claims = 4,
  Actual = 5,
  Effective = 6,
  Type = 7,
  Unknown = 255,
};

// A "v" or "c" key as .NET reads it: the two-letter name exactly, else the enum's name in any
// case (or its number, which Enum.TryParse also takes).
ScopeProp scope_prop(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"Sc", "Scope"},  {"Ro", "Roles"},  {"Pe", "Perms"},     {"Pr", "Principals"},
      {"Cl", "Claims"}, {"Ac", "Actual"}, {"Ef", "Effective"}, {"Ty", "Type"},
  };
  for (std::size_t i = 0; i < std::size(kNames); ++i) {
    if (name == kNames[i].first) return static_cast<ScopeProp>(i);
  }
  for (std::size_t i = 0; i < std::size(kNames); ++i) {
    if (absl::EqualsIgnoreCase(internal::absl_view(name), internal::absl_view(kNames[i].second))) {
      return static_cast<ScopeProp>(i);
    }
  }
  unsigned number = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (error == std::errc() && end == name.data() + name.size() && number < std::size(kNames)) {
    return static_cast<ScopeProp>(number);
  }
  return ScopeProp::Unknown;
}

struct ScopeMember {
  ScopeProp prop;
  std::string_view name;  // as written, for its path
  const Value* value;
};

// The members of a ScopeDelta's "v" or "c": each property at most once, so at most one of each.
class ScopeMembers {
 public:
  const ScopeMember* begin() const { return members_.data(); }
  const ScopeMember* end() const { return members_.data() + size_; }
  // False when `prop` is there already.
  bool add(const ScopeMember& member) {
    for (std::size_t i = 0; i < size_; ++i) {
      if (members_[i].prop == member.prop) return false;
    }
    members_[size_++] = member;
    return true;
  }

 private:
  std::array<ScopeMember, 8> members_{};  // one per ScopeProp but Unknown
  std::size_t size_ = 0;
};

// The members of a ScopeDelta's "v" or "c", each property once: "Sc" and "Scope" in one delta
// would be read differently by readers that keep the first and the last. A name .NET does not
// know is an error, as it is for .NET.
absl::Status scope_members(const Value& object, const JsonPath& path, ScopeMembers& members) {
  if (!object.IsObject()) return shape_error(path, "an object");
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    const std::string_view name(it->name.GetString(), it->name.GetStringLength());
    const ScopeProp prop = scope_prop(name);
    if (prop == ScopeProp::Unknown) {
      return shape_error(path.member(name), "a scope property (Sc, Ro, Pe, Pr, Cl, Ac, Ef or Ty)");
    }
    if (!members.add({prop, name, &it->value})) {
      return shape_error(path.member(name), "named once (it is there under two names)");
    }
  }
  return absl::OkStatus();
}

std::string text_of(const Value& value) {
  return std::string(value.GetString(), value.GetStringLength());
}

// A string, or null for "not set".
absl::Status read_optional_text(const Value& value, std::string& out, const JsonPath& path) {
  if (value.IsNull()) {
    out.clear();
    return absl::OkStatus();
  }
  if (!value.IsString()) return shape_error(path, "a string or null");
  out.assign(value.GetString(), value.GetStringLength());
  return absl::OkStatus();
}

// An array of strings whose nulls .NET skips.
absl::Status read_strings(const Value& value, std::vector<std::string>& out, const JsonPath& path) {
  if (!value.IsArray()) return shape_error(path, "an array of strings");
  for (const Value& item : value.GetArray()) {
    if (item.IsNull()) continue;
    if (!item.IsString()) return shape_error(path, "an array of strings");
    out.push_back(text_of(item));
  }
  return absl::OkStatus();
}

absl::Status read_flag(const Members& object, const char* name, bool& out, const JsonPath& at) {
  const Value* value = member(object, name);
  if (value == nullptr || value->IsNull()) return absl::OkStatus();
  if (!value->IsBool()) return shape_error(at.member(name), "true or false");
  out = value->GetBool();
  return absl::OkStatus();
}

absl::Status read_extensions(const Value& value, std::vector<ScopeExtension>& out,
                             const JsonPath& path) {
  if (value.IsNull()) return absl::OkStatus();
  if (!value.IsArray()) return shape_error(path, "an array of {\"k\":…,\"v\":…}");
  for (const Value& item : value.GetArray()) {
    const Value* k = item.IsObject() ? member(item, "k") : nullptr;
    if (k == nullptr || !k->IsString()) return shape_error(path, "an array of {\"k\":…,\"v\":…}");
    ScopeExtension extension{text_of(*k), std::nullopt};
    if (const Value* v = member(item, "v"); v != nullptr && !v->IsNull()) {
      if (!v->IsString()) return shape_error(path.member("v"), "a string or null");
      extension.value = text_of(*v);
    }
    out.push_back(std::move(extension));
  }
  return absl::OkStatus();
}

// `Sc`: replaces the whole PerspectiveScope part of the scope. Read straight into `scope`: a
// delta that fails to read fails the envelope, so nothing sees a half-read scope.
absl::Status read_perspective_scope(const Value& object, SecurityScope& scope, const JsonPath& at) {
  if (!object.IsObject()) return shape_error(at, "an object");
  const Members sc(object);
  for (const auto& [name, out] :
       {std::pair{"t", &scope.tenant_id}, std::pair{"u", &scope.user_id},
        std::pair{"c", &scope.customer_id}, std::pair{"o", &scope.organization_id}}) {
    out->clear();
    if (const Value* value = member(sc, name); value != nullptr) {
      WB_RETURN_IF_ERROR(read_optional_text(*value, *out, at.member(name)));
    }
  }
  // .NET reads "ap" only when it is an array.
  scope.allowed_principals.clear();
  if (const Value* ap = member(sc, "ap"); ap != nullptr && ap->IsArray()) {
    WB_RETURN_IF_ERROR(read_strings(*ap, scope.allowed_principals, at.member("ap")));
  }
  scope.is_system = false;
  scope.declared_unscoped = false;
  WB_RETURN_IF_ERROR(read_flag(sc, "sys", scope.is_system, at));
  WB_RETURN_IF_ERROR(read_flag(sc, "dec", scope.declared_unscoped, at));
  scope.extensions.clear();
  if (const Value* ex = member(sc, "ex"); ex != nullptr) {
    WB_RETURN_IF_ERROR(read_extensions(*ex, scope.extensions, at.member("ex")));
  }
  return absl::OkStatus();
}

// "v": each value present replaces the one before; a null principal clears it.
absl::Status apply_values(const Value& values, SecurityScope& scope, bool& found,
                          const JsonPath& path) {
  ScopeMembers members;
  WB_RETURN_IF_ERROR(scope_members(values, path, members));
  for (const auto& [prop, name, value] : members) {
    const JsonPath at = path.member(name);
    switch (prop) {
      case ScopeProp::Scope:
        WB_RETURN_IF_ERROR(read_perspective_scope(*value, scope, at));
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
        continue;  // a collection is changed under "c"; .NET ignores it here
    }
    found = true;
  }
  return absl::OkStatus();
}

// Roles, permissions or principals: "s" replaces them outright; otherwise "r" is removed, then
// "a" added. Sets: a value is there once.
absl::Status apply_collection(const Value& change, std::vector<std::string>& values,
                              const JsonPath& path) {
  const auto op = [&](const char* name) -> const Value* {
    const Value* value = member(change, name);
    return value != nullptr && !value->IsNull() ? value : nullptr;
  };
  const auto add_all = [&](const std::vector<std::string>& added) {
    for (const std::string& value : added) {
      if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    }
  };
  if (const Value* set = op("s")) {
    std::vector<std::string> replacement;
    WB_RETURN_IF_ERROR(read_strings(*set, replacement, path.member("s")));
    values.clear();
    add_all(replacement);
    return absl::OkStatus();
  }
  std::vector<std::string> removed;
  std::vector<std::string> added;
  if (const Value* remove = op("r"))
    WB_RETURN_IF_ERROR(read_strings(*remove, removed, path.member("r")));
  if (const Value* add = op("a")) WB_RETURN_IF_ERROR(read_strings(*add, added, path.member("a")));
  std::erase_if(values, [&](const std::string& value) {
    return std::find(removed.begin(), removed.end(), value) != removed.end();
  });
  add_all(added);
  return absl::OkStatus();
}

// Claims: "r" lists keys removed, then "a" ({claim: value}) upserts; "s" is ignored, as in .NET.
absl::Status apply_claims(const Value& change, std::map<std::string, std::string>& claims,
                          const JsonPath& path) {
  if (const Value* remove = member(change, "r"); remove != nullptr && !remove->IsNull()) {
    std::vector<std::string> removed;
    WB_RETURN_IF_ERROR(read_strings(*remove, removed, path.member("r")));
    for (const std::string& claim : removed) claims.erase(claim);
  }
  if (const Value* add = member(change, "a"); add != nullptr && !add->IsNull()) {
    if (!add->IsObject()) return shape_error(path.member("a"), "an object of strings");
    for (auto it = add->MemberBegin(); it != add->MemberEnd(); ++it) {
      if (it->value.IsNull()) continue;  // .NET skips a null value
      if (!it->value.IsString()) return shape_error(path.member("a"), "an object of strings");
      claims[std::string(it->name.GetString(), it->name.GetStringLength())] = text_of(it->value);
    }
  }
  return absl::OkStatus();
}

// "c": the changes to roles, permissions, principals and claims.
absl::Status apply_collections(const Value& changes, SecurityScope& scope, bool& found,
                               const JsonPath& path) {
  ScopeMembers members;
  WB_RETURN_IF_ERROR(scope_members(changes, path, members));
  for (const auto& [prop, name, value] : members) {
    const JsonPath at = path.member(name);
    if (!value->IsObject()) return shape_error(at, "an object");
    switch (prop) {
      case ScopeProp::Roles:
        WB_RETURN_IF_ERROR(apply_collection(*value, scope.roles, at));
        break;
      case ScopeProp::Perms:
        WB_RETURN_IF_ERROR(apply_collection(*value, scope.permissions, at));
        break;
      case ScopeProp::Principals:
        WB_RETURN_IF_ERROR(apply_collection(*value, scope.principals, at));
        break;
      case ScopeProp::Claims:
        WB_RETURN_IF_ERROR(apply_claims(*value, scope.claims, at));
        break;
      default:
        continue;  // a value is set under "v"; .NET ignores it here
    }
    found = true;
  }
  return absl::OkStatus();
}

}  // namespace

// A .NET ScopeDelta {"v":{…},"c":{…}}, or the flat {"u":…,"t":…} of earlier envelopes of this
// runtime (a user and tenant replacing the earlier ones).
absl::Status read_scope(const Value& sc, MessageHop& hop, const JsonPath& path,
                        const SecurityScope* base) {
  if (!sc.IsObject()) return shape_error(path, "an object");
  const Members members(sc);
  // Read into the hop's own scope; taken away again below when the delta changes nothing.
  SecurityScope& result = base != nullptr ? hop.scope.emplace(*base) : hop.scope.emplace();
  const Value* values = members.find("v");
  const Value* changes = members.find("c");
  bool found = values == nullptr && changes == nullptr;
  if (found) {
    result.user_id.clear();
    result.tenant_id.clear();
    WB_RETURN_IF_ERROR(read_string(members, "u", result.user_id, path));
    WB_RETURN_IF_ERROR(read_string(members, "t", result.tenant_id, path));
    found = !result.user_id.empty() || !result.tenant_id.empty();
  } else {
    if (values != nullptr && !values->IsNull()) {
      WB_RETURN_IF_ERROR(apply_values(*values, result, found, path.member("v")));
    }
    if (changes != nullptr && !changes->IsNull()) {
      WB_RETURN_IF_ERROR(apply_collections(*changes, result, found, path.member("c")));
    }
  }
  // A delta that leaves the earlier hops' scope as it was changes nothing: the hop has no scope of
  // its own (as if it carried none), so what is read is what is written back.
  if (!found || (base != nullptr && result == *base)) hop.scope.reset();
  return absl::OkStatus();
}

}  // namespace whizbang::envelope_json
