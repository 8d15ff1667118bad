// DispatcherCascadeTests: every returned shape cascades, events and commands mixed
// (docs/guide/01-getting-started.md, "Receptors").
#include "fixture.hpp"

namespace dispatch_test {
namespace {

using DispatcherCascadeTests = DispatcherTest;
using whizbang::DeliveryStatus;

TEST_F(DispatcherCascadeTests,
       LocalInvoke_TupleWithEvent_ReturnsFullTupleAndPublishesTheEventOnce) {
  CreateOrder command;
  command.order_id = "o-1";
  auto result = dispatcher_->local_invoke<std::tuple<OrderResult, OrderCreated>>(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(std::get<0>(*result).order_id, "o-1");
  EXPECT_EQ(std::get<1>(*result).order_id, "o-1");  // the cascaded event is still in the result
  EXPECT_EQ(journal_.count("OrderCreated"), 1);
}

TEST_F(DispatcherCascadeTests,
       LocalInvoke_ArrayOfEvents_ReturnsTheArrayAndTheHandlerFiresPerEvent) {
  NotifyAll command;
  command.count = 2;
  auto result = dispatcher_->local_invoke<std::vector<OrderCreated>>(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->size(), 2u);
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:0", "OrderCreated:1"}));
}

TEST_F(DispatcherCascadeTests, LocalInvoke_TupleWithSeveralEvents_PublishesEachInOrder) {
  ShipOrder command;
  command.order_id = "s-1";
  auto result =
      dispatcher_->local_invoke<std::tuple<OrderResult, OrderShipped, InventoryUpdated>>(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(journal_.count("OrderShipped"), 1);
  EXPECT_EQ(journal_.count("InventoryAuditA"), 1);
  EXPECT_EQ(journal_.count("InventoryAuditB"), 1);
  EXPECT_EQ(journal_.order().front(), "OrderShipped:s-1");
}

TEST_F(DispatcherCascadeTests, LocalInvoke_NestedTuple_PublishesBothEvents) {
  ComplexCommand command;
  command.id = "c-1";
  auto result =
      dispatcher_->local_invoke<std::tuple<OrderResult, std::tuple<OrderCreated, OrderShipped>>>(
          command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(std::get<0>(*result).order_id, "c-1");
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:c-1", "OrderShipped:c-1"}));
}

TEST_F(DispatcherCascadeTests, LocalInvoke_PlainDto_IsReturnedAndNothingIsPublished) {
  GetDto command;
  command.id = "dto";
  auto result = dispatcher_->local_invoke<OrderResult>(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->order_id, "dto");
  EXPECT_TRUE(journal_.entries().empty());
  EXPECT_TRUE(store_.rows.empty());
}

TEST_F(DispatcherCascadeTests, LocalInvoke_EmptyArray_ReturnsIntactWithoutPublishingOrFailing) {
  auto result =
      dispatcher_->local_invoke<std::tuple<OrderResult, std::vector<OrderCreated>>>(EmptyBatch{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(std::get<0>(*result).order_id, "empty");
  EXPECT_TRUE(std::get<1>(*result).empty());
  EXPECT_TRUE(journal_.entries().empty());
  EXPECT_TRUE(store_.rows.empty());
}

TEST_F(DispatcherCascadeTests,
       Send_TupleWithEvent_ReceiptDeliveredEventPublishedOnceCommandNotOutboxed) {
  CreateOrder command;
  command.order_id = "o-2";
  auto receipt = dispatcher_->send(command);
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, DeliveryStatus::Delivered);
  EXPECT_EQ(receipt->destination, "dispatch_test::CreateOrderReceptor");
  EXPECT_EQ(journal_.count("OrderCreated"), 1);
  EXPECT_TRUE(store_.rows_of("dispatch_test::CreateOrder").empty());
}

TEST_F(DispatcherCascadeTests,
       LocalInvoke_EventsMixedWithCommands_EventPublishedAndCommandDispatched) {
  ProcessOrder command;
  command.order_id = "p-1";
  auto result =
      dispatcher_->local_invoke<std::tuple<OrderResult, OrderCreated, SendInvoice>>(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:p-1", "SendInvoice:p-1"}));
}

TEST_F(DispatcherCascadeTests, NestedCascade_ACascadedReceptorsOwnResultCascadesToo) {
  ShipOrder command;
  command.order_id = "n-1";
  ASSERT_TRUE(dispatcher_->local_invoke(command).ok());
  // ShipOrder -> InventoryUpdated -> InventoryAuditA/B -> AuditLogged -> AuditJournal.
  EXPECT_EQ(journal_.count("AuditLogged"), 2);
  EXPECT_EQ(journal_.order(),
            (std::vector<std::string>{"OrderShipped:n-1", "InventoryAuditA:p-n-1",
                                      "AuditLogged:inventory-a:p-n-1", "InventoryAuditB:p-n-1",
                                      "AuditLogged:inventory-b:p-n-1"}));
}

TEST_F(DispatcherCascadeTests, FireAtReceptor_NeverFiresFromACascade) {
  CreateOrder command;
  command.order_id = "o-3";
  ASSERT_TRUE(dispatcher_->send(command).ok());
  EXPECT_EQ(journal_.count("OrderCreated"), 1);
  EXPECT_EQ(journal_.count("OrderCreatedLater"), 0);
}

TEST_F(DispatcherCascadeTests, VoidLocalInvoke_OfANonVoidReceptor_CascadesTheResultOnce) {
  CreateOrder command;
  command.order_id = "o-4";
  ASSERT_TRUE(dispatcher_->local_invoke(command).ok());
  EXPECT_EQ(journal_.count("OrderCreated"), 1);
}

TEST_F(DispatcherCascadeTests, Send_CommandWithNoLocalReceptor_WritesOneOutboxRowAndIsAccepted) {
  RemoteCommand command;
  command.payload = "x";
  auto receipt = dispatcher_->send(command);
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, DeliveryStatus::Accepted);
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_EQ(store_.rows[0].message_id, receipt->message_id);
  EXPECT_EQ(store_.rows[0].destination, "remote");
  EXPECT_FALSE(store_.rows[0].is_event);
}

TEST_F(DispatcherCascadeTests, Send_CommandWithNoReceptorAndNoOutbox_IsNotFound) {
  whizbang::DispatcherOptions options;
  options.self.service_name = "bare";
  auto bare = whizbang::Dispatcher::create(whizbang::generated::whizbang_dispatch_tests::registry(),
                                           services_, std::move(options));
  ASSERT_TRUE(bare.ok());
  auto receipt = (*bare)->send(RemoteCommand{});
  ASSERT_FALSE(receipt.ok());
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(receipt.status().message()).find("RemoteCommand"), std::string::npos);
}

TEST_F(DispatcherCascadeTests, Optional_EmptyCascadesNothingPresentCascadesTheEvent) {
  MaybeEmit none;
  ASSERT_TRUE(dispatcher_->local_invoke(none).ok());
  EXPECT_EQ(journal_.count("OrderCreated"), 0);
  MaybeEmit some;
  some.emit = true;
  ASSERT_TRUE(dispatcher_->local_invoke(some).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:maybe"}));
}

TEST_F(DispatcherCascadeTests, StdArray_CascadesEveryElement) {
  auto result = dispatcher_->local_invoke<std::array<OrderShipped, 2>>(ShipPair{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderShipped:a1", "OrderShipped:a2"}));
}

TEST_F(DispatcherCascadeTests, NestedVectors_FlattenInOrder) {
  ASSERT_TRUE(dispatcher_->local_invoke(Batches{}).ok());
  EXPECT_EQ(journal_.order(),
            (std::vector<std::string>{"OrderCreated:A1", "OrderCreated:A2", "OrderCreated:B1"}));
}

TEST_F(DispatcherCascadeTests, NonMessageValues_AreIgnoredAndLoggedAtDebug) {
  ASSERT_TRUE(dispatcher_->local_invoke(WithNonMessages{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:with-non-messages"}));
  EXPECT_FALSE(logs_containing("[EventId 101 CascadeNonMessageIgnored]").empty());
}

TEST_F(DispatcherCascadeTests, LocalInvoke_MessageWithoutReceptor_IsNotFound) {
  auto result = dispatcher_->local_invoke<OrderResult>(RemoteCommand{});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(DispatcherCascadeTests, LocalInvoke_AskingForATypeTheResultDoesNotHold_IsAClearError) {
  auto result = dispatcher_->local_invoke<OrderShipped>(GetDto{});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(std::string(result.status().message()).find("GetDtoReceptor"), std::string::npos);
}

}  // namespace
}  // namespace dispatch_test
