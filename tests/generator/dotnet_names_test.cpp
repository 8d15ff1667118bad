// The names whizbang-gen derives and checks for types shared with Whizbang .NET.
#include <gtest/gtest.h>

#include "dotnet_names.hpp"

namespace whizgen {
namespace {

TEST(DotNetNameTests, PascalCase_OfSnakeAndCamelCaseMembers) {
  EXPECT_EQ(pascal_case("order_id"), "OrderId");
  EXPECT_EQ(pascal_case("customerName"), "CustomerName");
  EXPECT_EQ(pascal_case("id"), "Id");
  EXPECT_EQ(pascal_case("sku2"), "Sku2");
  EXPECT_EQ(pascal_case("line_2_total"), "Line2Total");
  EXPECT_EQ(pascal_case("value_"), "Value");
  EXPECT_EQ(pascal_case("_hidden"), "Hidden");
  EXPECT_EQ(pascal_case("URL"), "URL");
}

TEST(DotNetNameTests, DotNetType_UsableForms) {
  for (const char* type :
       {"Shop.Contracts.OrderPlaced, Shop.Contracts", "Shop.OrderPlaced,Shop",
        "Shop.Contracts.Outer+Inner, Shop.Contracts-v2", "My_App.Events.Created, My.App.Events"}) {
    EXPECT_EQ(dotnet_type_problem(type), std::nullopt) << type;
  }
  EXPECT_EQ(dotnet_full_name(" Shop.Contracts.OrderPlaced , Shop.Contracts"),
            "Shop.Contracts.OrderPlaced");
  EXPECT_EQ(normalized_dotnet_type("Shop.Contracts.OrderPlaced,   Shop.Contracts "),
            "Shop.Contracts.OrderPlaced, Shop.Contracts");
}

TEST(DotNetNameTests, DotNetType_RefusedForms_SayWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"Shop.Contracts.OrderPlaced", "names no assembly"},
      {"Shop.OrderPlaced, Shop, Version=1.0.0.0", "more than a type and an assembly"},
      {"OrderPlaced, Shop", "has no namespace"},
      {"Shop.Box`1, Shop", "generic"},
      {"Shop.Order Placed, Shop", "not a C# identifier"},
      {"Shop..OrderPlaced, Shop", "not a C# identifier"},
      {"Shop.2Fast, Shop", "not a C# identifier"},
      {"Shop.OrderPlaced, ", "not an assembly name"},
      {"Shop.OrderPlaced, Shop/Contracts", "not an assembly name"},
  };
  for (const auto& [type, reason] : cases) {
    const std::optional<std::string> problem = dotnet_type_problem(type);
    ASSERT_TRUE(problem.has_value()) << type;
    EXPECT_NE(problem->find(reason), std::string::npos) << type << ": " << *problem;
  }
}

TEST(DotNetNameTests, CSharpIdentifiers) {
  EXPECT_TRUE(is_csharp_identifier("TrackingURL"));
  EXPECT_TRUE(is_csharp_identifier("_private"));
  EXPECT_FALSE(is_csharp_identifier(""));
  EXPECT_FALSE(is_csharp_identifier("2nd"));
  EXPECT_FALSE(is_csharp_identifier("Order Id"));
  EXPECT_FALSE(is_csharp_identifier("Order-Id"));
}

// A type nested in a class or struct is named the .NET way on the wire: '+' before it, so its
// namespace is the enclosing namespace (docs/guide/15-dotnet-services.md).
TEST(DotNetNameTests, NestedTypesAreJoinedWithPlus) {
  EXPECT_EQ(nested_wire_name("shop::OrderPlaced", 0), "shop::OrderPlaced");
  EXPECT_EQ(nested_wire_name("shop::Orders::Placed", 1), "shop::Orders+Placed");
  EXPECT_EQ(nested_wire_name("shop::Orders::Lines::Added", 2), "shop::Orders+Lines+Added");
  EXPECT_EQ(nested_wire_name("Orders::Placed", 1), "Orders+Placed");
  // More depth than separators: every separator there is, nothing else.
  EXPECT_EQ(nested_wire_name("Orders::Placed", 3), "Orders+Placed");
}

}  // namespace
}  // namespace whizgen
