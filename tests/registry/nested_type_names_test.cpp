// Registry lookups of nested message types: their wire names carry .NET's '+' before the nested
// type ("shop::Orders+Placed", "Shop.Billing+Charge"); a sender may spell them either way
// (docs/guide/15-dotnet-services.md, "Naming and routing").
#include <gtest/gtest.h>

#include <array>
#include <string_view>

#include "whizbang/registry/registry.hpp"

namespace nested_type_names_test {
namespace {

using whizbang::MessageEntry;
using whizbang::MessageKind;
using whizbang::MessageTypeInfo;
using whizbang::Registry;

constexpr MessageTypeInfo message_type(std::string_view wire_name, MessageKind kind,
                                       std::string_view dotnet_type = {}) {
  MessageTypeInfo info;
  info.wire_name = wire_name;
  info.cpp_name = wire_name;
  info.kind = kind;
  info.dotnet_type = dotnet_type;
  return info;
}

// As whizbang-gen names a C++ shop::Orders::Placed (Orders a struct) and a shared nested type.
constexpr MessageTypeInfo kCharge = message_type("Shop.Billing+Charge", MessageKind::Command,
                                                 "Shop.Billing+Charge, Shop.Contracts");
constexpr MessageTypeInfo kPlaced = message_type("shop::Orders+Placed", MessageKind::Event);
constexpr MessageTypeInfo kPlace = message_type("shop::Orders::Place", MessageKind::Command);

const std::array<MessageEntry, 3> kMessages = [] {
  std::array<MessageEntry, 3> entries;  // sorted by wire name
  entries[0].info = &kCharge;
  entries[1].info = &kPlace;
  entries[2].info = &kPlaced;
  return entries;
}();

absl::Status no_dispatch(std::uint32_t, const whizbang::AnyMessage&, const whizbang::ReceptorSet&,
                         whizbang::DispatchVisitor&) {
  return absl::OkStatus();
}

const Registry kRegistry("nested", kMessages, {}, &no_dispatch);

TEST(NestedTypeNameTests, FindMessage_ByItsWireNameWithPlus) {
  EXPECT_EQ(kRegistry.find_message("shop::Orders+Placed"), &kPlaced);
  EXPECT_EQ(kRegistry.find_message("Shop.Billing+Charge"), &kCharge);
}

TEST(NestedTypeNameTests, FindMessage_NestedTypeSpelledWithSeparators_FindsIt) {
  // An earlier C++ sender (wire names without '+') or a sender unaware of the nesting.
  EXPECT_EQ(kRegistry.find_message("shop::Orders::Placed"), &kPlaced);
  EXPECT_EQ(kRegistry.find_message("Shop.Billing.Charge"), &kCharge);
  // A registered name without '+' is found under .NET's spelling too.
  EXPECT_EQ(kRegistry.find_message("shop::Orders+Place"), &kPlace);
}

TEST(NestedTypeNameTests, FindMessage_DotNetAssemblyQualifiedName_EitherSpelling) {
  EXPECT_EQ(kRegistry.find_message("Shop.Billing+Charge, Shop.Contracts"), &kCharge);
  EXPECT_EQ(kRegistry.find_message("Shop.Billing.Charge, Shop.Contracts"), &kCharge);
  EXPECT_EQ(kRegistry.find_message("Shop.Billing+Charge, Shop.Contracts, Version=1.0.0.0, "
                                   "Culture=neutral, PublicKeyToken=null"),
            &kCharge);
  EXPECT_EQ(kRegistry.find_message("Shop.Billing+Charge, Other.Contracts"), nullptr);
  // No .NET identity: never found by an assembly-qualified name.
  EXPECT_EQ(kRegistry.find_message("shop::Orders+Placed, Shop.Contracts"), nullptr);
}

TEST(NestedTypeNameTests, FindMessage_OtherNamesStayUnknown) {
  EXPECT_EQ(kRegistry.find_message("shop::Orders"), nullptr);
  EXPECT_EQ(kRegistry.find_message("shop::OrdersPlaced"), nullptr);
  EXPECT_EQ(kRegistry.find_message("shop::Orders++Placed"), nullptr);
  EXPECT_EQ(kRegistry.find_message("shop::Orders+Placed+"), nullptr);
  EXPECT_EQ(kRegistry.find_message("Shop.Billing::Charge::"), nullptr);
  EXPECT_EQ(kRegistry.find_message("+"), nullptr);
}

}  // namespace
}  // namespace nested_type_names_test
