// Outbox routing: the default topic per message type and namespace ownership.
#include "whizbang/dispatch/outbox_routing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace whizbang {
namespace {

MessageTypeInfo type(std::string_view wire_name, MessageKind kind = MessageKind::Event) {
  MessageTypeInfo info;
  info.wire_name = wire_name;
  info.kind = kind;
  return info;
}

TEST(OutboxRoutingTests, DefaultDestination_FollowsTheReferenceConvention) {
  EXPECT_EQ(default_destination(type("shop::ProductCreated")), "products");
  EXPECT_EQ(default_destination(type("shop::CreateProductCommand", MessageKind::Command)),
            "products");
  EXPECT_EQ(default_destination(type("shop::InventoryReserved")), "inventory");
  EXPECT_EQ(default_destination(type("shop::orders::OrderShipped")), "orders");
  EXPECT_EQ(default_destination(type("shop.PaymentCapturedEvent")), "paymentcaptured");
  EXPECT_EQ(default_destination(type("billing::ChargeCardCommand", MessageKind::Command)),
            "chargecard");
  // The suffix is removed only for the matching kind, and never leaves an empty name.
  EXPECT_EQ(default_destination(type("billing::ChargeCardCommand")), "chargecardcommand");
  EXPECT_EQ(default_destination(type("Event")), "event");
  EXPECT_EQ(default_destination(type("Plain")), "plain");
  EXPECT_EQ(default_destination(type("legacy.billing::SendInvoice", MessageKind::Command)),
            "sendinvoice");
}

TEST(OutboxRoutingTests, IsOwned_NamespaceOrBelow_CaseInsensitive) {
  const std::vector<std::string> owned = {"shop", "Billing.Payments"};
  EXPECT_TRUE(is_owned(type("shop::OrderCreated"), owned));
  EXPECT_TRUE(is_owned(type("SHOP::orders::OrderCreated"), owned));
  EXPECT_TRUE(is_owned(type("shop.orders.OrderCreated"), owned));
  EXPECT_TRUE(is_owned(type("billing.payments.Captured"), owned));
  EXPECT_FALSE(is_owned(type("shopping::OrderCreated"), owned));  // a prefix is not a namespace
  EXPECT_FALSE(is_owned(type("billing.Captured"), owned));        // above the owned namespace
  EXPECT_FALSE(is_owned(type("OrderCreated"), owned));            // no namespace at all
  EXPECT_FALSE(is_owned(type("shop::OrderCreated"), {}));
}

}  // namespace
}  // namespace whizbang
