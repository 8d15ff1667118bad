// The scope column of stored rows is read with bounded nesting: a corrupt value is no scope,
// never a stack overflow.
#include <gtest/gtest.h>

#include <string>

#include "store/store_support.hpp"

namespace whizbang::store_internal {
namespace {

TEST(StoredScopeTests, ScopeColumn_ReadsUserAndTenant) {
  const std::optional<SecurityScope> scope = parse_scope_json(R"({"u":"user-3","t":"tenant-7"})");
  ASSERT_TRUE(scope.has_value());
  EXPECT_EQ(scope->user_id, "user-3");
  EXPECT_EQ(scope->tenant_id, "tenant-7");
}

TEST(StoredScopeTests, DeeplyNestedScopeColumn_IsNoScopeNotACrash) {
  const std::string nested = std::string(200'000, '[') + std::string(200'000, ']');
  EXPECT_EQ(parse_scope_json(nested), std::nullopt);
  EXPECT_EQ(parse_scope_json(R"({"u":)" + nested + "}"), std::nullopt);
}

}  // namespace
}  // namespace whizbang::store_internal
