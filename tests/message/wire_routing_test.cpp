// Wire-name routing (whizbang/message/wire_routing.hpp): the rules outbox routing, the publish
// strategy and the RabbitMQ topology share. Cases follow tests/dispatch/outbox_routing_test.cpp
// and tests/store/outbox_drain_worker_test.cpp (Scenario68), plus the edges.
#include "whizbang/message/wire_routing.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace whizbang {
namespace {

using Segments = std::vector<std::string_view>;

// ---- wire_name_segments -----------------------------------------------------------------------

TEST(WireNameSegmentsTests, CppAndDotNetNames_SplitIntoTheSameSegments) {
  EXPECT_EQ(wire_name_segments("shop::orders::OrderCreated"),
            (Segments{"shop", "orders", "OrderCreated"}));
  EXPECT_EQ(wire_name_segments("Shop.Orders.OrderCreated"),
            (Segments{"Shop", "Orders", "OrderCreated"}));
}

TEST(WireNameSegmentsTests, MixedSeparators_SplitOnBoth) {
  EXPECT_EQ(wire_name_segments("legacy.billing::SendInvoice"),
            (Segments{"legacy", "billing", "SendInvoice"}));
}

TEST(WireNameSegmentsTests, EmptySegments_AreDropped) {
  EXPECT_EQ(wire_name_segments("::shop::::Order."), (Segments{"shop", "Order"}));
  EXPECT_EQ(wire_name_segments("a..b"), (Segments{"a", "b"}));
}

TEST(WireNameSegmentsTests, EmptyOrSeparatorOnlyName_HasNoSegments) {
  EXPECT_TRUE(wire_name_segments("").empty());
  EXPECT_TRUE(wire_name_segments("::").empty());
  EXPECT_TRUE(wire_name_segments(".").empty());
}

TEST(WireNameSegmentsTests, NestedTypePlusAndSingleColon_StayInsideASegment) {
  EXPECT_EQ(wire_name_segments("Shop::Outer+Inner"), (Segments{"Shop", "Outer+Inner"}));
  EXPECT_EQ(wire_name_segments("shop:Order"), (Segments{"shop:Order"}));
}

// ---- wire_simple_name / wire_namespace --------------------------------------------------------

TEST(WireSimpleNameTests, QualifiedName_IsTheLastSegment) {
  EXPECT_EQ(wire_simple_name("shop::orders::OrderCreated"), "OrderCreated");
  EXPECT_EQ(wire_simple_name("Shop.Orders.OrderCreated"), "OrderCreated");
  EXPECT_EQ(wire_simple_name("legacy.billing::SendInvoice"), "SendInvoice");
  EXPECT_EQ(wire_simple_name("billing::payments.Captured"), "Captured");
}

TEST(WireSimpleNameTests, NameWithoutNamespace_IsTheWholeName) {
  EXPECT_EQ(wire_simple_name("OrderCreated"), "OrderCreated");
  EXPECT_EQ(wire_simple_name(""), "");
}

TEST(WireSimpleNameTests, NestedTypeAndSingleColon_AreNotSeparators) {
  EXPECT_EQ(wire_simple_name("Shop.Outer+Inner"), "Outer+Inner");
  EXPECT_EQ(wire_simple_name("shop:Order"), "shop:Order");
}

TEST(WireSimpleNameTests, TrailingSeparator_LeavesAnEmptyName) {
  EXPECT_EQ(wire_simple_name("shop::"), "");
  EXPECT_EQ(wire_simple_name("shop."), "");
}

TEST(WireNamespaceTests, QualifiedName_IsEverythingBeforeTheLastSeparator) {
  EXPECT_EQ(wire_namespace("shop::orders::OrderCreated"), "shop::orders");
  EXPECT_EQ(wire_namespace("Shop.Orders.OrderCreated"), "Shop.Orders");
  EXPECT_EQ(wire_namespace("legacy.billing::SendInvoice"), "legacy.billing");
  EXPECT_EQ(wire_namespace("billing::payments.Captured"), "billing::payments");
  EXPECT_EQ(wire_namespace("shop::ProductCreated"), "shop");
}

TEST(WireNamespaceTests, NameWithoutNamespace_IsEmpty) {
  EXPECT_EQ(wire_namespace("OrderCreated"), "");
  EXPECT_EQ(wire_namespace(""), "");
  EXPECT_EQ(wire_namespace("shop:Order"), "");
}

TEST(WireNamespaceTests, NestedType_KeepsItsOuterTypeOutOfTheNamespace) {
  EXPECT_EQ(wire_namespace("Shop.Orders.Outer+Inner"), "Shop.Orders");
}

// ---- namespace_within -------------------------------------------------------------------------

TEST(NamespaceWithinTests, SameNamespace_IsWithin_CaseInsensitively) {
  EXPECT_TRUE(namespace_within("shop", "shop"));
  EXPECT_TRUE(namespace_within("SHOP", "shop"));
  EXPECT_TRUE(namespace_within("billing.payments", "Billing.Payments"));
}

TEST(NamespaceWithinTests, NestedNamespace_IsWithinUnderEitherSeparator) {
  EXPECT_TRUE(namespace_within("shop::orders", "shop"));
  EXPECT_TRUE(namespace_within("Shop.Orders", "shop"));
  EXPECT_TRUE(namespace_within("SHOP::orders", "shop"));
  EXPECT_TRUE(namespace_within("shop::orders::returns", "shop::orders"));
  EXPECT_TRUE(namespace_within("Billing.Payments.Refunds", "billing.payments"));
}

TEST(NamespaceWithinTests, NamePrefix_IsNotANamespace) {
  EXPECT_FALSE(namespace_within("shopping", "shop"));
  EXPECT_FALSE(namespace_within("shopping::orders", "shop"));
  EXPECT_FALSE(namespace_within("shop:orders", "shop"));
}

TEST(NamespaceWithinTests, ParentOrSiblingNamespace_IsNotWithin) {
  EXPECT_FALSE(namespace_within("billing", "billing.payments"));
  EXPECT_FALSE(namespace_within("billing.invoices", "billing.payments"));
  EXPECT_FALSE(namespace_within("orders::shop", "shop"));
}

TEST(NamespaceWithinTests, EmptyNamespace_IsWithinOnlyAnEmptyDomain) {
  EXPECT_FALSE(namespace_within("", "shop"));
  EXPECT_TRUE(namespace_within("", ""));
  // A trailing separator is not a namespace below the domain.
  EXPECT_FALSE(namespace_within("shop::", "shop"));
}

// ---- detect_wire_kind -------------------------------------------------------------------------

TEST(DetectWireKindTests, NamespaceSegment_DecidesInAnyCase) {
  EXPECT_EQ(detect_wire_kind("Shop.Commands.Reserve"), WireKind::Command);
  EXPECT_EQ(detect_wire_kind("shop::events::Reserved"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("shop::QUERIES::FindOrder"), WireKind::Query);
  EXPECT_EQ(detect_wire_kind("shop::commands::sales::Reserve"), WireKind::Command);
}

TEST(DetectWireKindTests, NamespaceSegment_WinsOverTheSuffix) {
  EXPECT_EQ(detect_wire_kind("shop::events::CreateOrderCommand"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("shop::commands::OrderCreated"), WireKind::Command);
}

TEST(DetectWireKindTests, WithoutAKindNamespace_TheSuffixDecides) {
  EXPECT_EQ(detect_wire_kind("shop::CreateProductCommand"), WireKind::Command);
  EXPECT_EQ(detect_wire_kind("shop::FindOrderQuery"), WireKind::Query);
  EXPECT_EQ(detect_wire_kind("shop.PaymentCapturedEvent"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("shop::ProductCreated"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("shop::ProductUpdated"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("shop::OrderDeleted"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("CreateProductCommand"), WireKind::Command);
}

TEST(DetectWireKindTests, SuffixComparison_IsCaseSensitive) {
  EXPECT_EQ(detect_wire_kind("shop::createproductcommand"), WireKind::Unknown);
  EXPECT_EQ(detect_wire_kind("shop::productcreated"), WireKind::Unknown);
}

TEST(DetectWireKindTests, KindWordAsTheTypeName_IsNotANamespace) {
  // "Commands" is the type here, not a namespace segment, and has none of the suffixes.
  EXPECT_EQ(detect_wire_kind("shop::Commands"), WireKind::Unknown);
  EXPECT_EQ(detect_wire_kind("Commands"), WireKind::Unknown);
}

TEST(DetectWireKindTests, NoClue_IsUnknown) {
  EXPECT_EQ(detect_wire_kind("shop::Thing"), WireKind::Unknown);
  EXPECT_EQ(detect_wire_kind("shop::InventoryReserved"), WireKind::Unknown);
  EXPECT_EQ(detect_wire_kind(""), WireKind::Unknown);
  EXPECT_EQ(detect_wire_kind("::"), WireKind::Unknown);
}

// ---- routing_key_for --------------------------------------------------------------------------

TEST(RoutingKeyForTests, Segments_AreLowerCasedAndJoinedByDots) {
  EXPECT_EQ(routing_key_for("shop::commands::CreateOrder"), "shop.commands.createorder");
  EXPECT_EQ(routing_key_for("shop::events::OrderCreated"), "shop.events.ordercreated");
  EXPECT_EQ(routing_key_for("Shop.Contracts.OrderShipped"), "shop.contracts.ordershipped");
  EXPECT_EQ(routing_key_for("store_test::ShipOrderCommand"), "store_test.shipordercommand");
}

TEST(RoutingKeyForTests, CppAndDotNetSpellings_ShareAKey) {
  EXPECT_EQ(routing_key_for("shop::orders::OrderCreated"),
            routing_key_for("Shop.Orders.OrderCreated"));
  EXPECT_EQ(routing_key_for("legacy.billing::SendInvoice"), "legacy.billing.sendinvoice");
}

TEST(RoutingKeyForTests, NestedType_KeepsItsPlus) {
  EXPECT_EQ(routing_key_for("Shop::Outer+Inner"), "shop.outer+inner");
}

TEST(RoutingKeyForTests, EmptySegments_LeaveNoEmptyWords) {
  EXPECT_EQ(routing_key_for("::Shop::::Order."), "shop.order");
}

TEST(RoutingKeyForTests, NameWithoutNamespace_IsItsLowerCase) {
  EXPECT_EQ(routing_key_for("OrderCreated"), "ordercreated");
  EXPECT_EQ(routing_key_for(""), "");
}

}  // namespace
}  // namespace whizbang
