// DeliveryReceiptTests: what a receipt names, and that a publish's receipt borrows its
// destination rather than copying it (docs/guide/18-tracing.md, "What it costs").
#include "fixture.hpp"

namespace dispatch_test {
namespace {

using DeliveryReceiptTests = DispatcherTest;

AuditLogged audit(std::string action) {
  AuditLogged event;
  event.action = std::move(action);
  return event;
}

TEST_F(DeliveryReceiptTests, Publish_ReceiptsShareOneKeptDestination_NotACopyEach) {
  auto first = dispatcher_->publish(audit("a"));
  auto second = dispatcher_->publish(audit("b"));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->destination, "auditlogged");
  EXPECT_EQ(first->destination.view().data(), second->destination.view().data());
  // Another dispatcher over the same registry names the same kept text.
  auto other = make_dispatcher("orders-2")->publish(audit("c"));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->destination.view().data(), first->destination.view().data());
}

TEST_F(DeliveryReceiptTests, Publish_ReceiptOutlivesItsDispatcher_DestinationStillReadable) {
  auto receipt = make_dispatcher("short-lived")->publish(audit("kept"));  // dispatcher gone
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  const whizbang::DeliveryReceipt copy = *receipt;
  EXPECT_EQ(receipt->destination, "auditlogged");
  EXPECT_EQ(copy.destination.str(), "auditlogged");
}

TEST_F(DeliveryReceiptTests, Send_ReceiptNamesTheHandlingReceptor) {
  CreateOrder command;
  command.order_id = "o-r";
  auto receipt = dispatcher_->send(command);
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->destination, "dispatch_test::CreateOrderReceptor");
}

}  // namespace
}  // namespace dispatch_test
