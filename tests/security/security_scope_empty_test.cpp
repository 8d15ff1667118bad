// SecurityScope::empty() checks its members one by one (every dispatch asks it): any one member
// set makes a scope non-empty, exactly when it differs from a default scope.
#include <gtest/gtest.h>
#include <whizbang/message/envelope.hpp>

#include <functional>
#include <vector>

namespace whizbang {
namespace {

TEST(SecurityScopeEmptyTests, AnyOneMemberSet_IsNotEmpty_AsIfComparedWithADefaultScope) {
  EXPECT_TRUE(SecurityScope().empty());
  const std::vector<std::function<void(SecurityScope&)>> setters = {
      [](SecurityScope& s) { s.user_id = "u"; },
      [](SecurityScope& s) { s.tenant_id = "t"; },
      [](SecurityScope& s) { s.customer_id = "c"; },
      [](SecurityScope& s) { s.organization_id = "o"; },
      [](SecurityScope& s) { s.allowed_principals = {"p"}; },
      [](SecurityScope& s) { s.is_system = true; },
      [](SecurityScope& s) { s.declared_unscoped = true; },
      [](SecurityScope& s) { s.extensions = {{"k", "v"}}; },
      [](SecurityScope& s) { s.type = SecurityContextType::System; },
      [](SecurityScope& s) { s.actual_principal = "a"; },
      [](SecurityScope& s) { s.effective_principal = "e"; },
      [](SecurityScope& s) { s.roles = {"r"}; },
      [](SecurityScope& s) { s.permissions = {"p"}; },
      [](SecurityScope& s) { s.principals = {"p"}; },
      [](SecurityScope& s) { s.claims = {{"k", "v"}}; },
  };
  for (std::size_t i = 0; i < setters.size(); ++i) {
    SecurityScope scope;
    setters[i](scope);
    EXPECT_FALSE(scope == SecurityScope()) << "member " << i;
    EXPECT_FALSE(scope.empty()) << "member " << i;
  }
}

}  // namespace
}  // namespace whizbang
