// DispatcherRoutedCascadeTests: Route wrappers, DispatchModes and route priority with Local as the
// default (docs/guide/03-routing.md; the reference's cascade scenarios 10-17 and 29-39).
#include "fixture.hpp"

namespace dispatch_test {
namespace {

using DispatcherRoutedCascadeTests = DispatcherTest;
using whizbang::DeliveryStatus;

TEST_F(DispatcherRoutedCascadeTests, CascadeFromResult_WithRouteLocal_InvokesLocalReceptor) {
  auto result = dispatcher_->local_invoke<OrderCreated>(RoutedAnswer{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->order_id, "routed-answer");  // Routed<T> unwraps for a caller asking T
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:routed-answer"}));
  // Local persists: one event-store row (no destination).
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_FALSE(store_.rows[0].destination.has_value());
}

TEST_F(DispatcherRoutedCascadeTests, CascadeFromResult_BareEvent_DefaultsToLocalWithEventStore) {
  CreateOrder command;
  command.order_id = "bare";
  ASSERT_TRUE(dispatcher_->local_invoke(command).ok());
  EXPECT_EQ(journal_.count("OrderCreated"), 1);
  const auto rows = store_.rows_of("dispatch_test::OrderCreated");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].destination.has_value());
  EXPECT_TRUE(rows[0].is_event);
}

TEST_F(DispatcherRoutedCascadeTests,
       CascadeFromResult_PerItemRoutes_LocalSeesLocalAndBothOutboxSeesOutboxAndBoth) {
  auto result = dispatcher_->local_invoke<
      std::tuple<OrderResult, whizbang::Routed<OrderCreated>, whizbang::Routed<ExternalNoticed>,
                 whizbang::Routed<AuditLogged>>>(RouteEach{});
  ASSERT_TRUE(result.ok()) << result.status();
  // The caller sees the wrappers unchanged.
  EXPECT_EQ(std::get<1>(*result).mode, whizbang::DispatchModes::Local);
  EXPECT_EQ(std::get<2>(*result).mode, whizbang::DispatchModes::Outbox);
  EXPECT_EQ(std::get<3>(*result).mode, whizbang::DispatchModes::Both);
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:local", "AuditLogged:both"}));
  ASSERT_EQ(store_.rows_of("dispatch_test::ExternalNoticed").size(), 1u);
  EXPECT_EQ(store_.rows_of("dispatch_test::ExternalNoticed")[0].destination, "externalnoticed");
  ASSERT_EQ(store_.rows_of("dispatch_test::AuditLogged").size(), 1u);
  EXPECT_TRUE(store_.rows_of("dispatch_test::AuditLogged")[0].destination.has_value());
  // Local: event-store row without destination.
  ASSERT_EQ(store_.rows_of("dispatch_test::OrderCreated").size(), 1u);
  EXPECT_FALSE(store_.rows_of("dispatch_test::OrderCreated")[0].destination.has_value());
}

TEST_F(DispatcherRoutedCascadeTests,
       CascadeFromResult_WithRouteOutbox_NoLocalReceptorAndARealDestination) {
  ASSERT_TRUE(dispatcher_->local_invoke(RoutedBatch{}).ok());
  const auto rows = store_.rows_of("dispatch_test::ExternalNoticed");
  ASSERT_EQ(rows.size(), 2u);  // the collection wrapper routes both items
  for (const auto& row : rows) EXPECT_EQ(row.destination, "externalnoticed");
}

TEST_F(DispatcherRoutedCascadeTests,
       CascadeFromResult_WithRouteLocalNoPersist_RunsLocallyAndStoresNothing) {
  ASSERT_TRUE(dispatcher_->local_invoke(Ephemeral{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:ephemeral"}));
  EXPECT_TRUE(store_.rows.empty());
}

TEST_F(DispatcherRoutedCascadeTests,
       CascadeFromResult_WithRouteEventStoreOnly_StoresWithoutDestinationAndRunsNothing) {
  ASSERT_TRUE(dispatcher_->local_invoke(AuditOnly{}).ok());
  EXPECT_EQ(journal_.count("AuditLogged"), 0);
  const auto rows = store_.rows_of("dispatch_test::AuditLogged");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].destination.has_value());
}

TEST_F(DispatcherRoutedCascadeTests, CascadeFromResult_RouteNone_YieldsOnlyTheMessageBetween) {
  ASSERT_TRUE(dispatcher_->local_invoke(RouteNoneMix{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:between-nones"}));
}

TEST_F(DispatcherRoutedCascadeTests, CascadeFromResult_IndividualWrapperBeatsTheCollectionWrapper) {
  ASSERT_TRUE(dispatcher_->local_invoke(NestedRoute{}).ok());
  // ExternalNoticed: inner Outbox wins; OrderShipped: the outer Local applies.
  EXPECT_EQ(store_.rows_of("dispatch_test::ExternalNoticed").size(), 1u);
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderShipped:outer-local"}));
  const auto shipped = store_.rows_of("dispatch_test::OrderShipped");
  ASSERT_EQ(shipped.size(), 1u);
  EXPECT_FALSE(shipped[0].destination.has_value());
}

TEST_F(DispatcherRoutedCascadeTests, CascadeFromResult_MessageTypeAttributeBeatsEveryWrapper) {
  ASSERT_TRUE(dispatcher_->local_invoke(AttributeRoute{}).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"CacheWarmed:k"}));
  EXPECT_TRUE(store_.rows.empty());  // LocalNoPersist, not the wrapper's Outbox
}

TEST_F(DispatcherRoutedCascadeTests, CascadeFromResult_ReceptorDefaultBeatsTheWrapper) {
  ASSERT_TRUE(dispatcher_->local_invoke(ReceptorDefault{}).ok());
  EXPECT_EQ(journal_.count("OrderCreated"), 0);
  const auto rows = store_.rows_of("dispatch_test::OrderCreated");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].destination, "orders");
}

TEST_F(DispatcherRoutedCascadeTests,
       Send_RoutedEventWithALocalReceptor_ReceptorGetsTheUnwrappedEvent) {
  OrderCreated created;
  created.order_id = "wrapped";
  for (auto routed : {whizbang::Route::Local(created), whizbang::Route::Outbox(created),
                      whizbang::Route::Both(created)}) {
    auto receipt = dispatcher_->send(routed);
    ASSERT_TRUE(receipt.ok()) << receipt.status();
    EXPECT_EQ(receipt->status, DeliveryStatus::Delivered);
  }
  EXPECT_EQ(journal_.count("OrderCreated"), 3);
}

TEST_F(DispatcherRoutedCascadeTests, SendOrLocalInvoke_RoutedNone_IsInvalidArgument) {
  auto receipt = dispatcher_->send(whizbang::Route::None());
  ASSERT_FALSE(receipt.ok());
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(dispatcher_->local_invoke(whizbang::Route::None()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(dispatcher_->send(whizbang::Routed<OrderCreated>{}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(DispatcherRoutedCascadeTests, LocalInvoke_RoutedCommand_ReceptorGetsTheUnwrappedCommand) {
  CreateOrder command;
  command.order_id = "routed-command";
  auto result = dispatcher_->local_invoke<std::tuple<OrderResult, OrderCreated>>(
      whizbang::Route::Local(command));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(std::get<0>(*result).order_id, "routed-command");
}

TEST_F(DispatcherRoutedCascadeTests, Publish_DefaultsToBoth_RunsLocallyAndWritesTheOutbox) {
  OrderCreated created;
  created.order_id = "published";
  auto receipt = dispatcher_->publish(created);
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, DeliveryStatus::Delivered);
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:published"}));
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_EQ(store_.rows[0].message_id, receipt->message_id);
  EXPECT_TRUE(store_.rows[0].is_event);
  EXPECT_EQ(store_.rows[0].destination, "orders");
  EXPECT_EQ(journal_.count("OrderCreatedLater"), 0);  // fire_at receptors never run on publish
}

TEST_F(DispatcherRoutedCascadeTests, Publish_WithRouteLocalNoPersist_RunsLocallyOnly) {
  OrderCreated created;
  created.order_id = "ephemeral";
  ASSERT_TRUE(dispatcher_->publish(whizbang::Route::LocalNoPersist(created)).ok());
  EXPECT_EQ(journal_.count("OrderCreated"), 1);
  EXPECT_TRUE(store_.rows.empty());
}

// A LocalNoPersist publish to receptors that return nothing skips building an envelope; the
// receptor must see what the general path gives it.
TEST_F(DispatcherRoutedCascadeTests, Publish_LocalNoPersistAndLocal_ReceptorSeesTheSameContext) {
  OrderCreated created;
  created.order_id = "ctx";
  auto ephemeral = dispatcher_->run_as("carol").for_tenant("t-1").publish(
      whizbang::Route::LocalNoPersist(created));
  auto stored =
      dispatcher_->run_as("carol").for_tenant("t-1").publish(whizbang::Route::Local(created));
  ASSERT_TRUE(ephemeral.ok()) << ephemeral.status();
  ASSERT_TRUE(stored.ok()) << stored.status();
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].message_id, ephemeral->message_id);
  EXPECT_EQ(entries[1].message_id, stored->message_id);
  for (const auto& entry : entries) {
    EXPECT_EQ(entry.receptor, "OrderCreated");
    EXPECT_EQ(entry.user_id, "carol");
    EXPECT_EQ(entry.tenant_id, "t-1");
  }
  EXPECT_EQ(ephemeral->status, whizbang::DeliveryStatus::Delivered);
  EXPECT_EQ(ephemeral->destination, stored->destination);
  EXPECT_LT(ephemeral->message_id, stored->message_id);  // minted in order
  ASSERT_EQ(store_.rows.size(), 1u);                     // only the Local one
  EXPECT_EQ(store_.rows[0].message_id, stored->message_id);
}

TEST_F(DispatcherRoutedCascadeTests, CustomDestinationResolver_IsAskedOnEveryDispatch) {
  int calls = 0;
  whizbang::DispatcherOptions options;
  options.self.service_name = "orders";
  options.store = &store_;
  options.destination = [&calls](const whizbang::MessageTypeInfo&) {
    return "topic-" + std::to_string(++calls);
  };
  auto dispatcher = whizbang::Dispatcher::create(
      whizbang::generated::whizbang_dispatch_tests::registry(), services_, std::move(options));
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
  OrderCreated first;
  first.order_id = "a";
  OrderCreated second;
  second.order_id = "b";
  ASSERT_TRUE((*dispatcher)->publish(whizbang::Route::Outbox(first)).ok());
  ASSERT_TRUE((*dispatcher)->publish(whizbang::Route::Outbox(second)).ok());
  ASSERT_EQ(store_.rows.size(), 2u);
  EXPECT_NE(store_.rows[0].destination, store_.rows[1].destination);
  EXPECT_GE(calls, 2);
}

}  // namespace
}  // namespace dispatch_test
