// A received envelope's security scope is the fold of its Current hops' deltas, walked forward,
// as Whizbang .NET's MessageEnvelope.GetCurrentScope computes it (docs/guide/16-security.md):
// Causation hops are ignored, a value replaces, "Sc" replaces the whole PerspectiveScope,
// collections are set or have values removed then added, claims are upserted and removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scope_test_support.hpp"

namespace whizbang {
namespace {

using scope_test::sorted;

// Hops as a .NET service chain writes them (hand-written deltas), with a Causation hop whose
// scope (SYSTEM, an admin role) must not leak into the message's scope.
const std::vector<std::string> kHops = {
    // 0 Current: the whole scope, set.
    R"({"v":{"Sc":{"t":"tenant-1","u":"alice","c":"cust-1","o":"org-1","ap":["group:sales"]},)"
    R"("Ac":"alice","Ef":"alice"},)"
    R"("c":{"Ro":{"s":["reader","writer"]},"Pe":{"s":["orders:read"]},)"
    R"("Pr":{"s":["user:alice","group:sales"]},"Cl":{"a":{"dept":"sales","level":"2"}}}})",
    // 1 Causation: ignored.
    R"({"v":{"Sc":{"t":"*","u":"SYSTEM"},"Ty":1},"c":{"Ro":{"s":["admin"]},)"
    R"("Pr":{"s":["user:SYSTEM"]},"Cl":{"a":{"dept":"root"}}}})",
    // 2 Current: roles, principals and claims added and removed.
    R"({"c":{"Ro":{"a":["approver"],"r":["writer"]},"Pr":{"a":["group:managers"]},)"
    R"("Cl":{"a":{"level":"3"},"r":["dept"]}}})",
    // 3 Current: no change.
    "",
    // 4 Current: Sc replaced whole, impersonation, permissions set, a principal removed.
    R"({"v":{"Sc":{"t":"tenant-2","u":"alice","o":"org-2"},"Ty":2,"Ef":"bob"},)"
    R"("c":{"Pe":{"s":["orders:approve"]},"Pr":{"r":["user:alice"]}}})",
};
const std::vector<HopType> kTypes = {HopType::Current, HopType::Causation, HopType::Current,
                                     HopType::Current, HopType::Current};

TEST(ScopeFoldTests, DotNetHops_FoldToTheHandComputedScope) {
  absl::StatusOr<Envelope> envelope = scope_test::read_with(kHops, kTypes);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const std::optional<SecurityScope> scope = envelope->current_scope();
  ASSERT_TRUE(scope.has_value());
  EXPECT_EQ(scope->tenant_id, "tenant-2");
  EXPECT_EQ(scope->user_id, "alice");
  EXPECT_EQ(scope->customer_id, "") << "Sc replaces the whole PerspectiveScope";
  EXPECT_EQ(scope->organization_id, "org-2");
  EXPECT_TRUE(scope->allowed_principals.empty());
  EXPECT_EQ(scope->type, SecurityContextType::Impersonated);
  EXPECT_EQ(scope->actual_principal, "alice");
  EXPECT_EQ(scope->effective_principal, "bob");
  EXPECT_EQ(sorted(scope->roles), (std::vector<std::string>{"approver", "reader"}));
  EXPECT_FALSE(scope->has_role("admin")) << "the Causation hop's role leaked";
  EXPECT_EQ(scope->permissions, std::vector<std::string>{"orders:approve"});
  EXPECT_TRUE(scope->has_permission("orders:approve"));
  EXPECT_FALSE(scope->has_permission("orders:read"));
  EXPECT_EQ(sorted(scope->principals), (std::vector<std::string>{"group:managers", "group:sales"}));
  EXPECT_EQ(scope->claims, (std::map<std::string, std::string>{{"level", "3"}}));
}

TEST(ScopeFoldTests, EachHop_HoldsTheScopeFoldedUpToIt) {
  absl::StatusOr<Envelope> envelope = scope_test::read_with(kHops, kTypes);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const std::vector<MessageHop>& hops = envelope->hops;
  ASSERT_TRUE(hops[0].scope && hops[1].scope && hops[2].scope && hops[4].scope);
  EXPECT_EQ(hops[0].scope->customer_id, "cust-1");
  EXPECT_EQ(hops[0].scope->allowed_principals, std::vector<std::string>{"group:sales"});
  // The Causation hop's scope is its delta alone.
  EXPECT_EQ(hops[1].scope->user_id, "SYSTEM");
  EXPECT_EQ(hops[1].scope->roles, std::vector<std::string>{"admin"});
  // Hop 2 builds on hop 0, not on the Causation hop.
  EXPECT_EQ(hops[2].scope->user_id, "alice");
  EXPECT_EQ(hops[2].scope->customer_id, "cust-1");
  EXPECT_EQ(sorted(hops[2].scope->roles), (std::vector<std::string>{"approver", "reader"}));
  EXPECT_EQ(sorted(hops[2].scope->principals),
            (std::vector<std::string>{"group:managers", "group:sales", "user:alice"}));
  EXPECT_EQ(hops[2].scope->claims, (std::map<std::string, std::string>{{"level", "3"}}));
  EXPECT_FALSE(hops[3].scope.has_value()) << "a hop that changed nothing has no scope of its own";
  EXPECT_EQ(envelope->current_scope_hop(), &hops[4]);
}

// Written again, the hops carry deltas that fold to the same scopes.
TEST(ScopeFoldTests, FoldedEnvelope_WrittenAgain_FoldsTheSame) {
  absl::StatusOr<Envelope> envelope = scope_test::read_with(kHops, kTypes);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const std::string json = serialize_envelope(*envelope);
  EXPECT_EQ(scope_test::sc_of(json, 3), "");
  EXPECT_EQ(scope_test::sc_of(json, 2),
            R"({"c":{"Ro":{"a":["approver"],"r":["writer"]},"Pr":{"a":["group:managers"]},)"
            R"("Cl":{"a":{"level":"3"},"r":["dept"]}}})");
  absl::StatusOr<Envelope> back = deserialize_envelope(json, store_test::resolve);
  ASSERT_TRUE(back.ok()) << back.status();
  for (std::size_t i = 0; i < kHops.size(); ++i) {
    EXPECT_EQ(back->hops[i].scope, envelope->hops[i].scope) << "hop " << i;
  }
  EXPECT_EQ(back->current_scope(), envelope->current_scope());
}

// Only Causation hops carry a scope: the message has none.
TEST(ScopeFoldTests, OnlyCausationHopsWithAScope_NoScope) {
  absl::StatusOr<Envelope> envelope = scope_test::read_with({R"({"v":{"Sc":{"u":"SYSTEM"}}})", ""},
                                                            {HopType::Causation, HopType::Current});
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  EXPECT_FALSE(envelope->current_scope().has_value());
}

}  // namespace
}  // namespace whizbang
