// The security scope `sc` of a hop, byte for byte as Whizbang .NET writes its ScopeDelta and as it
// reads one (docs/guide/16-security.md). Every expected JSON below is written by hand from .NET's
// rules, not produced by this library: "v" holds values (Sc, Ac, Ef, Ty), "c" collections (Ro,
// Pe, Pr with s/a/r string arrays; Cl with "a" an object and "r" keys); a hop writes only what
// changed from the scope of the earlier Current hops.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scope_test_support.hpp"

namespace whizbang {
namespace {

using scope_test::sorted;

using scope_test::envelope_with;
using scope_test::read_with;
using scope_test::sc_of;

SecurityScope read_one(const std::string& sc) {
  absl::StatusOr<Envelope> envelope = read_with({sc});
  EXPECT_TRUE(envelope.ok()) << envelope.status() << "\n" << sc;
  if (!envelope.ok() || !envelope->hops[0].scope) return SecurityScope();
  return *envelope->hops[0].scope;
}

// ---- writing --------------------------------------------------------------------------------

TEST(ScopeDeltaGoldenTests, FirstHop_PlainUserAndTenant_IsWhatDotNetWrites) {
  const std::string json = serialize_envelope(envelope_with({SecurityScope{"u-1", "t-1"}}));
  EXPECT_EQ(sc_of(json, 0), R"({"v":{"Sc":{"t":"t-1","u":"u-1"}}})");
}

TEST(ScopeDeltaGoldenTests, FirstHop_EveryPerspectiveScopeMember_InDotNetsOrder) {
  SecurityScope scope{"u-1", "t-1"};
  scope.customer_id = "c-1";
  scope.organization_id = "o-1";
  scope.allowed_principals = {"user:alice", "group:sales"};
  scope.is_system = true;
  scope.declared_unscoped = true;
  scope.extensions = {{"region", "eu"}, {"flag", std::nullopt}};
  EXPECT_EQ(sc_of(serialize_envelope(envelope_with({scope})), 0),
            R"({"v":{"Sc":{"t":"t-1","u":"u-1","c":"c-1","o":"o-1",)"
            R"("ap":["user:alice","group:sales"],"sys":true,"dec":true,)"
            R"("ex":[{"k":"region","v":"eu"},{"k":"flag"}]}}})");
}

TEST(ScopeDeltaGoldenTests, FirstHop_ValuesAndCollections_AreSetWhole) {
  SecurityScope scope;
  scope.tenant_id = "t";
  scope.actual_principal = "alice";
  scope.effective_principal = "SYSTEM";
  scope.type = SecurityContextType::System;
  scope.roles = {"admin", "auditor"};
  scope.permissions = {"orders:write"};
  scope.principals = {"user:alice", "group:ops"};
  scope.claims = {{"level", "3"}, {"dept", "sales"}};
  EXPECT_EQ(sc_of(serialize_envelope(envelope_with({scope})), 0),
            R"({"v":{"Sc":{"t":"t"},"Ac":"alice","Ef":"SYSTEM","Ty":1},)"
            R"("c":{"Ro":{"s":["admin","auditor"]},"Pe":{"s":["orders:write"]},)"
            R"("Pr":{"s":["user:alice","group:ops"]},"Cl":{"a":{"dept":"sales","level":"3"}}}})");
}

SecurityScope base_scope() {
  SecurityScope scope{"u", "t"};
  scope.actual_principal = "alice";
  scope.type = SecurityContextType::Impersonated;
  scope.roles = {"a", "b"};
  scope.permissions = {"p"};
  scope.principals = {"user:alice"};
  scope.claims = {{"k1", "v1"}, {"k2", "v2"}};
  return scope;
}

// Each change a later hop can make, and the delta .NET writes for it.
TEST(ScopeDeltaGoldenTests, LaterHop_WritesOnlyWhatChanged) {
  struct Case {
    const char* what;
    void (*change)(SecurityScope&);
    const char* expected;
  };
  const Case cases[] = {
      {"nothing", [](SecurityScope&) {}, ""},
      {"role added and removed", [](SecurityScope& s) { s.roles = {"b", "c"}; },
       R"({"c":{"Ro":{"a":["c"],"r":["a"]}}})"},
      {"all roles replaced", [](SecurityScope& s) { s.roles = {"x", "y"}; },
       R"({"c":{"Ro":{"s":["x","y"]}}})"},
      {"all roles removed", [](SecurityScope& s) { s.roles.clear(); },
       R"({"c":{"Ro":{"r":["a","b"]}}})"},
      {"permission added", [](SecurityScope& s) { s.permissions.push_back("q"); },
       R"({"c":{"Pe":{"a":["q"]}}})"},
      {"principal replaced", [](SecurityScope& s) { s.principals = {"group:x"}; },
       R"({"c":{"Pr":{"s":["group:x"]}}})"},
      {"principal added", [](SecurityScope& s) { s.principals.push_back("group:x"); },
       R"({"c":{"Pr":{"a":["group:x"]}}})"},
      {"claims changed, added, removed",
       [](SecurityScope& s) { s.claims = {{"k2", "new"}, {"k3", "v3"}}; },
       R"({"c":{"Cl":{"a":{"k2":"new","k3":"v3"},"r":["k1"]}}})"},
      {"actual principal cleared", [](SecurityScope& s) { s.actual_principal.clear(); },
       R"({"v":{"Ac":null}})"},
      {"effective principal set", [](SecurityScope& s) { s.effective_principal = "bob"; },
       R"({"v":{"Ef":"bob"}})"},
      {"back to a user", [](SecurityScope& s) { s.type = SecurityContextType::User; },
       R"({"v":{"Ty":0}})"},
      {"customer set: the whole Sc", [](SecurityScope& s) { s.customer_id = "c2"; },
       R"({"v":{"Sc":{"t":"t","u":"u","c":"c2"}}})"},
      {"organization set", [](SecurityScope& s) { s.organization_id = "o2"; },
       R"({"v":{"Sc":{"t":"t","u":"u","o":"o2"}}})"},
      {"allowed principal set", [](SecurityScope& s) { s.allowed_principals = {"group:g"}; },
       R"({"v":{"Sc":{"t":"t","u":"u","ap":["group:g"]}}})"},
      {"tenant cleared", [](SecurityScope& s) { s.tenant_id.clear(); },
       R"({"v":{"Sc":{"u":"u"}}})"},
      {"system flag", [](SecurityScope& s) { s.is_system = true; },
       R"({"v":{"Sc":{"t":"t","u":"u","sys":true}}})"},
      {"declared unscoped", [](SecurityScope& s) { s.declared_unscoped = true; },
       R"({"v":{"Sc":{"t":"t","u":"u","dec":true}}})"},
      {"extension", [](SecurityScope& s) { s.extensions = {{"region", "eu"}}; },
       R"({"v":{"Sc":{"t":"t","u":"u","ex":[{"k":"region","v":"eu"}]}}})"},
      {"a value and a collection",
       [](SecurityScope& s) {
         s.type = SecurityContextType::System;
         s.roles.push_back("c");
       },
       R"({"v":{"Ty":1},"c":{"Ro":{"a":["c"]}}})"},
  };
  for (const Case& c : cases) {
    SecurityScope later = base_scope();
    c.change(later);
    const Envelope envelope = envelope_with({base_scope(), later});
    const std::string json = serialize_envelope(envelope);
    EXPECT_EQ(sc_of(json, 1), c.expected) << c.what;
    // Read back, the later hop folds to the scope it was written from.
    absl::StatusOr<Envelope> back = deserialize_envelope(json, store_test::resolve);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->current_scope(), later) << c.what;
  }
}

// A Causation hop's scope stands alone (written whole), and the next Current hop's delta is
// from the Current hops before it, not from the Causation hop.
TEST(ScopeDeltaGoldenTests, CausationHop_StandsAlone_AndIsNotTheNextHopsBase) {
  SecurityScope other{"bob", "t-9"};
  other.roles = {"z"};
  SecurityScope later = base_scope();
  later.roles.push_back("c");
  const std::string json = serialize_envelope(envelope_with(
      {base_scope(), other, later}, {HopType::Current, HopType::Causation, HopType::Current}));
  EXPECT_EQ(sc_of(json, 1), R"({"v":{"Sc":{"t":"t-9","u":"bob"}},"c":{"Ro":{"s":["z"]}}})");
  EXPECT_EQ(sc_of(json, 2), R"({"c":{"Ro":{"a":["c"]}}})");
}

// ---- reading --------------------------------------------------------------------------------

TEST(ScopeDeltaGoldenTests, EveryMember_IsRead) {
  const SecurityScope scope = read_one(
      R"({"v":{"Sc":{"t":"t-1","u":"u-1","c":"c-1","o":"o-1","ap":["user:a",null,"group:b"],)"
      R"("sys":true,"dec":true,"ex":[{"k":"region","v":"eu"},{"k":"flag","v":null}]},)"
      R"("Ac":"alice","Ef":"SYSTEM","Ty":3},)"
      R"("c":{"Ro":{"s":["r1","r2"]},"Pe":{"s":["p1"]},"Pr":{"s":["user:a"]},)"
      R"("Cl":{"a":{"k":"v"}}}})");
  SecurityScope expected{"u-1", "t-1"};
  expected.customer_id = "c-1";
  expected.organization_id = "o-1";
  expected.allowed_principals = {"user:a", "group:b"};
  expected.is_system = true;
  expected.declared_unscoped = true;
  expected.extensions = {{"region", "eu"}, {"flag", std::nullopt}};
  expected.actual_principal = "alice";
  expected.effective_principal = "SYSTEM";
  expected.type = SecurityContextType::ServiceAccount;
  expected.roles = {"r1", "r2"};
  expected.permissions = {"p1"};
  expected.principals = {"user:a"};
  expected.claims = {{"k", "v"}};
  EXPECT_EQ(scope, expected);
}

// .NET reads the two-letter names exactly, and the enum's names (or numbers) in any case.
TEST(ScopeDeltaGoldenTests, EnumNameKeys_AreRead) {
  const SecurityScope scope =
      read_one(R"({"v":{"SCOPE":{"t":"t","c":"c"},"actual":"bob","Effective":"eve","type":2},)"
               R"("c":{"roles":{"s":["r"]},"PERMS":{"s":["p"]},"Principals":{"s":["user:bob"]},)"
               R"("claims":{"a":{"k":"v"}}}})");
  EXPECT_EQ(scope.tenant_id, "t");
  EXPECT_EQ(scope.customer_id, "c");
  EXPECT_EQ(scope.actual_principal, "bob");
  EXPECT_EQ(scope.effective_principal, "eve");
  EXPECT_EQ(scope.type, SecurityContextType::Impersonated);
  EXPECT_EQ(scope.roles, std::vector<std::string>{"r"});
  EXPECT_EQ(scope.permissions, std::vector<std::string>{"p"});
  EXPECT_EQ(scope.principals, std::vector<std::string>{"user:bob"});
  EXPECT_EQ(scope.claims, (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_EQ(read_one(R"({"v":{"0":{"u":"n"}}})").user_id, "n");
}

TEST(ScopeDeltaGoldenTests, CollectionOps_AreAppliedAsDotNetDoes) {
  // "s" wins outright: "a" and "r" beside it are ignored.
  EXPECT_EQ(read_one(R"({"c":{"Ro":{"s":["a"],"a":["b"],"r":["a"]}}})").roles,
            std::vector<std::string>{"a"});
  // Otherwise remove, then add: a value removed and added is there.
  absl::StatusOr<Envelope> envelope =
      read_with({R"({"c":{"Pe":{"s":["a","b"]},"Pr":{"s":["x","y"]}}})",
                 R"({"c":{"Pe":{"r":["a","b"],"a":["a","c"]},"Pr":{"r":["x"],"a":["z","z"]}}})"});
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  ASSERT_TRUE(envelope->current_scope().has_value());
  EXPECT_EQ(sorted(envelope->current_scope()->permissions), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(sorted(envelope->current_scope()->principals), (std::vector<std::string>{"y", "z"}));
  // Claims: "r" removes keys, then "a" upserts; "s" means nothing for claims.
  envelope = read_with({R"({"c":{"Cl":{"a":{"k":"1","j":"2","i":"0"}}}})",
                        R"({"c":{"Cl":{"s":{"x":"9"},"r":["k","i"],"a":{"k":"3","j":"4"}}}})"});
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  EXPECT_EQ(envelope->current_scope()->claims,
            (std::map<std::string, std::string>{{"j", "4"}, {"k", "3"}}));
}

TEST(ScopeDeltaGoldenTests, Values_ReplaceAndNullClears) {
  absl::StatusOr<Envelope> envelope = read_with(
      {R"({"v":{"Sc":{"t":"t","u":"u","c":"c","o":"o","ap":["g"]},"Ac":"alice","Ef":"eve",)"
       R"("Ty":1}})",
       R"({"v":{"Sc":{"t":"t2"},"Ac":null}})"});
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  SecurityScope expected;
  expected.tenant_id = "t2";  // Sc replaces the whole PerspectiveScope
  expected.effective_principal = "eve";
  expected.type = SecurityContextType::System;
  EXPECT_EQ(envelope->current_scope(), expected);
}

TEST(ScopeDeltaGoldenTests, MalformedDeltas_AreShapeErrors) {
  for (const char* bad : {
           R"({"v":{"sc":{"u":"a"}}})",      // two-letter names are exact
           R"({"v":{"Xy":1}})",              // no such property
           R"({"v":{"Sc":null}})",           // a scope is an object
           R"({"v":{"Sc":{"sys":"yes"}}})",  // a flag is a boolean
           R"({"c":{"Ro":null}})",           // a change is an object
           R"({"c":{"Pr":{"a":[1]}}})",      // of strings
           R"({"c":{"Cl":{"a":["x"]}}})",    // claims added are an object
           R"({"v":{"Ty":4}})",              // no such context type
       }) {
    absl::StatusOr<Envelope> envelope = read_with({bad});
    EXPECT_EQ(envelope.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace whizbang
