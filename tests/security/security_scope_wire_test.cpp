// The whole security scope travels on the hops as .NET ScopeDeltas, and a receiver folds them
// (scope_delta_golden_test.cpp and scope_fold_test.cpp pin the forms and the fold).
#include <gtest/gtest.h>

#include <string>

#include "store_test_support.hpp"
#include "whizbang/message/envelope_json.hpp"

namespace whizbang {
namespace {

Envelope envelope_with_hops(std::vector<std::optional<SecurityScope>> scopes) {
  Envelope envelope = Envelope::create(AnyMessage::make(store_test::OrderCreated{"o-1", 1}),
                                       store_test::instance("orders"));
  envelope.hops.clear();
  for (std::optional<SecurityScope>& scope : scopes) {
    MessageHop hop;
    hop.service_instance = store_test::instance("orders");
    hop.scope = std::move(scope);
    envelope.hops.push_back(std::move(hop));
  }
  return envelope;
}

SecurityScope full_scope() {
  SecurityScope scope;
  scope.user_id = "SYSTEM";
  scope.tenant_id = "tenant-7";
  scope.type = SecurityContextType::System;
  scope.actual_principal = "alice";
  scope.effective_principal = "SYSTEM";
  scope.roles = {"admin", "auditor"};
  scope.permissions = {"orders:write"};
  scope.claims = {{"department", "sales"}, {"level", "3"}};
  return scope;
}

Envelope decoded(std::string_view json) {
  absl::StatusOr<Envelope> envelope = deserialize_envelope(json, store_test::resolve);
  EXPECT_TRUE(envelope.ok()) << envelope.status() << "\n" << json;
  return envelope.ok() ? *std::move(envelope) : Envelope();
}

TEST(SecurityScopeWireTests, WholeScope_RoundTripsAsAScopeDelta) {
  const Envelope envelope = envelope_with_hops({full_scope()});
  const std::string json = serialize_envelope(envelope);
  EXPECT_NE(json.find(R"("sc":{"v":{"Sc":{"t":"tenant-7","u":"SYSTEM"},"Ac":"alice","Ef":"SYSTEM",)"
                      R"("Ty":1},"c":{"Ro":{"s":["admin","auditor"]},"Pe":{"s":["orders:write"]},)"
                      R"("Cl":{"a":{"department":"sales","level":"3"}}}})"),
            std::string::npos)
      << json;
  const Envelope back = decoded(json);
  ASSERT_EQ(back.hops.size(), 1u);
  EXPECT_EQ(back.hops[0].scope, full_scope());
  EXPECT_EQ(serialize_envelope(back), json);
}

// What .NET writes for a plain user and tenant is unchanged: {"v":{"Sc":{"t":…,"u":…}}}.
TEST(SecurityScopeWireTests, PlainScope_IsWhatDotNetWritesForOne) {
  const std::string json =
      serialize_envelope(envelope_with_hops({SecurityScope{"user-1", "tenant-1"}}));
  EXPECT_NE(json.find(R"("sc":{"v":{"Sc":{"t":"tenant-1","u":"user-1"}}})"), std::string::npos)
      << json;
}

// .NET's reader accepts enum names in any case and collection changes as set, add and remove.
TEST(SecurityScopeWireTests, DotNetDeltaForms_AreRead) {
  const Envelope base = envelope_with_hops({SecurityScope{"u", "t"}});
  std::string json = serialize_envelope(base);
  const std::string plain = R"("sc":{"v":{"Sc":{"t":"t","u":"u"}}})";
  ASSERT_NE(json.find(plain), std::string::npos);
  json.replace(json.find(plain), plain.size(),
               R"("sc":{"v":{"scope":{"t":"t","u":"u"},"ACTUAL":"bob","Effective":null,"type":2},)"
               R"("c":{"Roles":{"r":["b"],"a":["c","a"]},"PERMS":{"a":["p"]},)"
               R"("Claims":{"a":{"x":"1"},"r":["y"]},"Pr":{"s":["group:g"]}}})");
  const Envelope back = decoded(json);
  ASSERT_TRUE(back.hops[0].scope.has_value());
  const SecurityScope& scope = *back.hops[0].scope;
  EXPECT_EQ(scope.user_id, "u");
  EXPECT_EQ(scope.actual_principal, "bob");
  EXPECT_EQ(scope.effective_principal, "");
  EXPECT_EQ(scope.type, SecurityContextType::Impersonated);
  EXPECT_EQ(scope.roles, (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(scope.principals, (std::vector<std::string>{"group:g"}));
  EXPECT_EQ(scope.permissions, (std::vector<std::string>{"p"}));
  EXPECT_EQ(scope.claims, (std::map<std::string, std::string>{{"x", "1"}}));
  EXPECT_TRUE(scope.has_role("c"));
  EXPECT_FALSE(scope.has_role("b"));
  EXPECT_TRUE(scope.has_permission("p"));
}

TEST(SecurityScopeWireTests, MalformedScopeMembers_AreShapeErrors) {
  const Envelope base = envelope_with_hops({SecurityScope{"u", "t"}});
  const std::string json = serialize_envelope(base);
  const std::string plain = R"("sc":{"v":{"Sc":{"t":"t","u":"u"}}})";
  for (const char* bad :
       {R"("sc":{"v":{"Ty":7}})", R"("sc":{"v":{"Ty":"1"}})", R"("sc":{"c":{"Ro":{"s":[1]}}})",
        R"("sc":{"c":{"Cl":{"a":{"k":1}}}})", R"("sc":{"v":{"Ac":5}})", R"("sc":{"c":{"Pe":"p"}})",
        // One property under two names: readers would disagree on which wins.
        R"("sc":{"v":{"Sc":{"u":"a"},"scope":{"u":"SYSTEM"}}})",
        R"("sc":{"c":{"Ro":{"s":["a"]},"ROLES":{"s":["admin"]}}})"}) {
    std::string changed = json;
    changed.replace(changed.find(plain), plain.size(), bad);
    absl::StatusOr<Envelope> envelope = deserialize_envelope(changed, store_test::resolve);
    EXPECT_EQ(envelope.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

// In memory a hop holds the whole scope in force from it on, so the message's scope is the latest
// Current hop's: a later hop holding only a tenant has no user (on the wire its delta says so).
TEST(SecurityScopeWireTests, InMemory_TheLatestCurrentHopsScope_IsTheMessagesScope) {
  SecurityScope forged;
  forged.user_id = "SYSTEM";
  forged.type = SecurityContextType::System;
  forged.roles = {"admin"};
  SecurityScope latest;
  latest.tenant_id = "tenant-2";
  Envelope envelope = envelope_with_hops({forged, latest, std::nullopt});
  ASSERT_TRUE(envelope.current_scope().has_value());
  EXPECT_EQ(*envelope.current_scope(), latest);
  EXPECT_EQ(envelope.current_scope_hop(), &envelope.hops[1]);
  absl::StatusOr<Envelope> back =
      deserialize_envelope(serialize_envelope(envelope), store_test::resolve);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->current_scope(), latest);

  // A Causation hop's scope is not the message's.
  envelope.hops[1].type = HopType::Causation;
  EXPECT_EQ(*envelope.current_scope(), forged);
  EXPECT_FALSE(envelope_with_hops({std::nullopt}).current_scope().has_value());
}

}  // namespace
}  // namespace whizbang
