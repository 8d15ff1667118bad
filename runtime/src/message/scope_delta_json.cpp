// A hop's security scope in the envelope JSON, written as the .NET ScopeDelta does: only what
// changed from the scope folded from the earlier hops (docs/guide/16-security.md). Read in
// scope_delta_read.cpp.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "envelope_json_parts.hpp"

namespace whizbang::envelope_json {
namespace {

void write_string_array(Writer& writer, const std::vector<std::string>& values) {
  writer.StartArray();
  for (const std::string& value : values) string(writer, value);
  writer.EndArray();
}

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// The part of a scope .NET keeps in its PerspectiveScope (`Sc`).
bool same_perspective_scope(const SecurityScope& a, const SecurityScope& b) {
  return a.tenant_id == b.tenant_id && a.user_id == b.user_id && a.customer_id == b.customer_id &&
         a.organization_id == b.organization_id && a.allowed_principals == b.allowed_principals &&
         a.is_system == b.is_system && a.declared_unscoped == b.declared_unscoped &&
         a.extensions == b.extensions;
}

// `Sc`: the members that are set, in .NET's order; `ap` and `ex` only when not empty, `sys` and
// `dec` only when true.
void write_perspective_scope(Writer& writer, const SecurityScope& scope) {
  writer.StartObject();
  for (const auto& [name, value] :
       {std::pair{"t", &scope.tenant_id}, std::pair{"u", &scope.user_id},
        std::pair{"c", &scope.customer_id}, std::pair{"o", &scope.organization_id}}) {
    if (value->empty()) continue;
    key(writer, name);
    string(writer, *value);
  }
  if (!scope.allowed_principals.empty()) {
    key(writer, "ap");
    write_string_array(writer, scope.allowed_principals);
  }
  for (const auto& [name, flag] :
       {std::pair{"sys", scope.is_system}, std::pair{"dec", scope.declared_unscoped}}) {
    if (!flag) continue;
    key(writer, name);
    writer.Bool(true);
  }
  if (!scope.extensions.empty()) {
    key(writer, "ex");
    writer.StartArray();
    for (const ScopeExtension& extension : scope.extensions) {
      writer.StartObject();
      key(writer, "k");
      string(writer, extension.key);
      if (extension.value) {
        key(writer, "v");
        string(writer, *extension.value);
      }
      writer.EndObject();
    }
    writer.EndArray();
  }
  writer.EndObject();
}

// The "v" members that changed: Sc, Ac, Ef, Ty. Without a base the scope is written whole (Sc
// always, the others when set); a principal cleared since the base is written as null.
struct ValueChanges {
  bool scope = false;
  bool actual = false;
  bool effective = false;
  bool type = false;

  bool any() const { return scope || actual || effective || type; }
};

ValueChanges value_changes(const SecurityScope& scope, const SecurityScope* base) {
  if (base == nullptr) {
    return {true, !scope.actual_principal.empty(), !scope.effective_principal.empty(),
            scope.type != SecurityContextType::User};
  }
  return {!same_perspective_scope(*base, scope), base->actual_principal != scope.actual_principal,
          base->effective_principal != scope.effective_principal, base->type != scope.type};
}

void write_principal(Writer& writer, const char* name, const std::string& principal) {
  key(writer, name);
  if (principal.empty()) {
    writer.Null();
  } else {
    string(writer, principal);
  }
}

void write_values(Writer& writer, const SecurityScope& scope, const ValueChanges& changes) {
  key(writer, "v");
  writer.StartObject();
  if (changes.scope) {
    key(writer, "Sc");
    write_perspective_scope(writer, scope);
  }
  if (changes.actual) write_principal(writer, "Ac", scope.actual_principal);
  if (changes.effective) write_principal(writer, "Ef", scope.effective_principal);
  if (changes.type) {
    key(writer, "Ty");
    writer.Int(static_cast<int>(scope.type));
  }
  writer.EndObject();
}

// How .NET writes a change to roles, permissions or principals: "s" (set) when there was nothing
// before or everything was replaced, else what was added ("a") and removed ("r").
struct CollectionChange {
  const char* name;
  std::vector<std::string> set, add, remove;

  bool any() const { return !set.empty() || !add.empty() || !remove.empty(); }
};

std::size_t distinct(const std::vector<std::string>& values) {
  std::vector<std::string> seen;
  for (const std::string& value : values) {
    if (!contains(seen, value)) seen.push_back(value);
  }
  return seen.size();
}

CollectionChange collection_change(const char* name, const std::vector<std::string>& previous,
                                   const std::vector<std::string>& current) {
  CollectionChange change{name, {}, {}, {}};
  for (const std::string& value : current) {
    if (!contains(previous, value) && !contains(change.add, value)) change.add.push_back(value);
  }
  for (const std::string& value : previous) {
    if (!contains(current, value) && !contains(change.remove, value)) {
      change.remove.push_back(value);
    }
  }
  // Collections are sets (a value listed twice counts once), as in .NET.
  const bool all_replaced = !current.empty() && change.add.size() == distinct(current) &&
                            change.remove.size() == distinct(previous);
  if ((previous.empty() && !current.empty()) || all_replaced) {
    change.add.clear();
    change.remove.clear();
    for (const std::string& value : current) {
      if (!contains(change.set, value)) change.set.push_back(value);
    }
  }
  return change;
}

void write_collection(Writer& writer, const CollectionChange& change) {
  key(writer, change.name);
  writer.StartObject();
  for (const auto& [op, values] :
       {std::pair{"s", &change.set}, std::pair{"a", &change.add}, std::pair{"r", &change.remove}}) {
    if (values->empty()) continue;
    key(writer, op);
    write_string_array(writer, *values);
  }
  writer.EndObject();
}

// Claims change by key: new or changed ones under "a" (an object), removed keys under "r".
struct ClaimsChange {
  std::map<std::string, std::string> add;
  std::vector<std::string> remove;

  bool any() const { return !add.empty() || !remove.empty(); }
};

ClaimsChange claims_change(const std::map<std::string, std::string>& previous,
                           const std::map<std::string, std::string>& current) {
  ClaimsChange change;
  for (const auto& [claim, value] : current) {
    auto it = previous.find(claim);
    if (it == previous.end() || it->second != value) change.add.emplace(claim, value);
  }
  for (const auto& [claim, value] : previous) {
    if (!current.contains(claim)) change.remove.push_back(claim);
  }
  return change;
}

void write_claims(Writer& writer, const ClaimsChange& change) {
  key(writer, "Cl");
  writer.StartObject();
  if (!change.add.empty()) {
    key(writer, "a");
    writer.StartObject();
    for (const auto& [claim, value] : change.add) {
      key(writer, claim);
      string(writer, value);
    }
    writer.EndObject();
  }
  if (!change.remove.empty()) {
    key(writer, "r");
    write_string_array(writer, change.remove);
  }
  writer.EndObject();
}

}  // namespace

// Values under "v" (Sc, Ac, Ef, Ty), collections under "c" (Ro, Pe, Pr, Cl), each only when it
// changed from `base`. A plain user-and-tenant scope on a first hop is {"v":{"Sc":{"t":…,
// "u":…}}}, exactly what .NET writes for one.
void write_scope(Writer& writer, const SecurityScope& scope, const SecurityScope* base) {
  static const SecurityScope kNone;
  const SecurityScope& previous = base != nullptr ? *base : kNone;
  const ValueChanges values = value_changes(scope, base);
  const CollectionChange collections[] = {
      collection_change("Ro", previous.roles, scope.roles),
      collection_change("Pe", previous.permissions, scope.permissions),
      collection_change("Pr", previous.principals, scope.principals),
  };
  const ClaimsChange claims = claims_change(previous.claims, scope.claims);
  const bool any_collection =
      claims.any() || std::any_of(std::begin(collections), std::end(collections),
                                  [](const CollectionChange& change) { return change.any(); });
  if (!values.any() && !any_collection) return;  // unchanged: the hop carries no "sc"

  key(writer, "sc");
  writer.StartObject();
  if (values.any()) write_values(writer, scope, values);
  if (any_collection) {
    key(writer, "c");
    writer.StartObject();
    for (const CollectionChange& change : collections) {
      if (change.any()) write_collection(writer, change);
    }
    if (claims.any()) write_claims(writer, claims);
    writer.EndObject();
  }
  writer.EndObject();
}

}  // namespace whizbang::envelope_json
