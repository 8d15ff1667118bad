// CascadeScenarioTests, part 2: send / local_invoke / publish, scenarios 21-45 of the reference
// implementation's cascade tests; a bare cascaded message routes Local (local receptors + event
// store, not Both; docs/guide/03-routing.md); the RPC path runs the receptor once; void
// local_invoke of a non-void receptor cascades. Part 1 (scenarios 1-20) is
// cascade_scenarios_test.cpp.
//
// clang-format off
// Scenarios already covered by an existing test, which a scenario-named test here would only
// repeat:
//   21 DispatcherCascadeTests.LocalInvoke_TupleWithEvent_ReturnsFullTupleAndPublishesTheEventOnce
//   22 DispatcherCascadeTests.LocalInvoke_ArrayOfEvents_ReturnsTheArrayAndTheHandlerFiresPerEvent
//   23 DispatcherCascadeTests.LocalInvoke_PlainDto_IsReturnedAndNothingIsPublished
//   24 DispatcherCascadeTests.LocalInvoke_EmptyArray_ReturnsIntactWithoutPublishingOrFailing
//   25 DispatcherCascadeTests.Send_TupleWithEvent_ReceiptDeliveredEventPublishedOnceCommandNotOutboxed
//   26 DispatcherCascadeTests.Send_CommandWithNoLocalReceptor_WritesOneOutboxRowAndIsAccepted
//      (Scenario26 below adds the deferred channel)
//   28 DispatcherCascadeTests.Send_CommandWithNoReceptorAndNoOutbox_IsNotFound
//   30 DispatcherRoutedCascadeTests.SendOrLocalInvoke_RoutedNone_IsInvalidArgument
//   33 DispatcherRoutedCascadeTests.CascadeFromResult_WithRouteLocal_InvokesLocalReceptor
//   34 DispatcherRoutedCascadeTests.CascadeFromResult_WithRouteLocalNoPersist_RunsLocallyAndStoresNothing
//   35 DispatcherRoutedCascadeTests.CascadeFromResult_WithRouteEventStoreOnly_StoresWithoutDestinationAndRunsNothing
//   37 DispatcherRoutedCascadeTests.CascadeFromResult_PerItemRoutes_LocalSeesLocalAndBothOutboxSeesOutboxAndBoth
//      (AuditLogged, Both: fires once locally and gets a real destination). Owned domains only
//      rewrite commands routed exactly Outbox, so an owned event with Both is an event with Both.
//   38 the same test (caller receives the wrappers unchanged)
//   39 DispatcherRoutedCascadeTests.CascadeFromResult_WithRouteLocal_InvokesLocalReceptor
//   44 DispatcherRoutedCascadeTests.Publish_DefaultsToBoth_RunsLocallyAndWritesTheOutbox
// clang-format on
#include <whizbang/lifecycle/receptor_invoker.hpp>
#include <whizbang/message/envelope_json.hpp>

#include "cascade_scenarios.hpp"

namespace dispatch_test {
namespace {

using whizbang::DeliveryStatus;
using whizbang::Stage;

OrderCreated created(std::string id) {
  OrderCreated event;
  event.order_id = std::move(id);
  return event;
}

TEST_F(CascadeScenarioTests, Scenario26_SendWithoutReceptorOrStore_GoesToTheDeferredChannel) {
  whizbang::DeferredOutboxChannel channel;
  auto storeless = make_storeless(&channel);
  auto receipt = storeless->send(RemoteCommand{});
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, DeliveryStatus::Accepted);
  const auto rows = channel.drain_all();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].message_id, receipt->message_id);
  EXPECT_EQ(rows[0].destination, "remote");
  EXPECT_FALSE(rows[0].is_event);
  EXPECT_TRUE(store_.rows.empty());
}

TEST_F(CascadeScenarioTests, Scenario27_OwnedCommandWithoutReceptor_AcceptedAndNothingQueued) {
  auto owning = make_owning({"Dispatch_Test"});  // case-insensitive
  auto receipt = owning->send(RemoteCommand{});
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, DeliveryStatus::Accepted);
  EXPECT_FALSE(receipt->message_id.is_nil());
  EXPECT_TRUE(store_.rows.empty());
  EXPECT_EQ(logs_containing("EventId 104 OwnedCommandWithoutReceptor").size(), 1u);
}

TEST_F(CascadeScenarioTests, Scenario27_WithoutOwnedDomains_ACommandWithoutReceptorIsQueued) {
  auto receipt = dispatcher_->send(RemoteCommand{});
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, DeliveryStatus::Accepted);
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_EQ(receipt->message_id, store_.rows[0].message_id);
  EXPECT_EQ(receipt->destination, store_.rows[0].destination);
  EXPECT_EQ(receipt->stream_id, store_.rows[0].stream_id);
  EXPECT_TRUE(receipt->correlation_id.has_value());
  EXPECT_TRUE(receipt->causation_id.has_value());
}

TEST_F(CascadeScenarioTests, Scenario29_SendRouteOutboxWithLocalReceptor_HandledLocallyNotQueued) {
  auto receipt = dispatcher_->send(whizbang::Route::Outbox(created("wrapped")));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, DeliveryStatus::Delivered);
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:wrapped"}));
  EXPECT_TRUE(store_.rows.empty());  // the wrapper's mode is ignored by send
}

TEST_F(CascadeScenarioTests, Scenario31_BareEvent_FiresOnceAndItsRowIdIsTheIdTheHandlerSaw) {
  // Reference: default Both -> an outbox row. Ours: default Local -> an event-store row.
  ASSERT_TRUE(dispatcher_->local_invoke(SingleEvent{}).ok());
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].receptor, "OrderShipped");
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_EQ(store_.rows[0].message_id, entries[0].message_id);
  EXPECT_FALSE(store_.rows[0].destination.has_value());
  EXPECT_TRUE(store_.rows[0].is_event);
}

TEST_F(CascadeScenarioTests, Scenario32_RouteOutbox_NoLocalHandlerAndOneRowWithADestination) {
  ASSERT_TRUE(dispatcher_->local_invoke(OutboxOnlyEvent{}).ok());
  EXPECT_TRUE(journal_.entries().empty());  // OrderCreated has a local receptor; it must not run
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_EQ(store_.rows[0].message_type, "dispatch_test::OrderCreated");
  EXPECT_EQ(store_.rows[0].destination, "orders");
  EXPECT_TRUE(store_.rows[0].is_event);
}

TEST_F(CascadeScenarioTests, Scenario36_OwnedCommandRoutedOutbox_IsRewrittenToLocal) {
  auto owning = make_owning({"dispatch_test"});
  auto result =
      owning->local_invoke<std::tuple<OrderResult, whizbang::Routed<SendInvoice>>>(OutboxCommand{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(journal_.count("SendInvoice"), 1);  // handled here
  EXPECT_TRUE(store_.rows.empty());             // a command is never event-stored; no transport
}

TEST_F(CascadeScenarioTests, Scenario36_ForeignCommandRoutedOutbox_IsNotRewritten) {
  auto owning = make_owning({"billing"});  // not this command's namespace
  ASSERT_TRUE((owning->local_invoke<std::tuple<OrderResult, whizbang::Routed<SendInvoice>>>(
                   OutboxCommand{}))
                  .ok());
  EXPECT_EQ(journal_.count("SendInvoice"), 0);
  EXPECT_EQ(store_.rows.size(), 1u);
}

TEST_F(CascadeScenarioTests, Scenario36_WithoutOwnedDomains_CommandRoutedOutboxGoesToTheOutbox) {
  auto result = dispatcher_->local_invoke<std::tuple<OrderResult, whizbang::Routed<SendInvoice>>>(
      OutboxCommand{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(std::get<0>(*result).order_id, "queued");
  EXPECT_EQ(journal_.count("SendInvoice"), 0);
  ASSERT_EQ(store_.rows.size(), 1u);
  EXPECT_EQ(store_.rows[0].message_type, "dispatch_test::SendInvoice");
  EXPECT_EQ(store_.rows[0].destination, "sendinvoice");
  EXPECT_FALSE(store_.rows[0].is_event);
}

TEST_F(CascadeScenarioTests, Scenario40_RpcExtraction_ReceptorRunsOnceAndTheRestCascadesOnce) {
  auto result = dispatcher_->local_invoke<OrderResult>(who("rpc"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->order_id, "rpc");
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"WhoAmI:rpc", "AuditLogged:whoami:rpc"}));
  EXPECT_EQ(store_.rows_of("dispatch_test::AuditLogged").size(), 1u);
  EXPECT_EQ(store_.rows.size(), 1u);
}

TEST_F(CascadeScenarioTests, Scenario41_RpcExtractionOfAnAbsentType_IsAnErrorNamingTheReceptor) {
  auto result = dispatcher_->local_invoke<OrderShipped>(who("absent"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(result.status().message()).find("dispatch_test::WhoAmIReceptor"),
            std::string::npos)
      << result.status();
  EXPECT_LE(journal_.count("WhoAmI"), 1);  // never the reference's second run
}

TEST_F(CascadeScenarioTests, Scenario42_VoidLocalInvokeOfNonVoidReceptor_BodyOnceCascadeOnce) {
  ASSERT_TRUE(dispatcher_->local_invoke(who("void")).ok());
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"WhoAmI:void", "AuditLogged:whoami:void"}));
  EXPECT_EQ(store_.rows_of("dispatch_test::AuditLogged").size(), 1u);
}

TEST_F(CascadeScenarioTests, Scenario43_Publish_FireAtReceptorFiresOnceAtItsStageOnly) {
  auto receipt = dispatcher_->publish(created("staged"));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:staged"}));
  ASSERT_EQ(store_.rows.size(), 1u);
  const auto& registry = whizbang::generated::whizbang_dispatch_tests::registry();
  auto envelope = whizbang::deserialize_envelope(
      store_.rows[0].envelope_json,
      [&](std::string_view name) { return registry.find_message(name); });
  ASSERT_TRUE(envelope.ok()) << envelope.status();

  whizbang::ReceptorInvoker invoker(*dispatcher_, {});
  auto first = invoker.invoke(*envelope, Stage::PostAllPerspectivesDetached);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_THAT(first->fired, ::testing::ElementsAre("dispatch_test::OrderCreatedLater"));
  auto second = invoker.invoke(*envelope, Stage::PostAllPerspectivesDetached);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->fired.empty());

  EXPECT_EQ(journal_.order(),
            (std::vector<std::string>{"OrderCreated:staged", "OrderCreatedLater:staged"}));
  EXPECT_EQ(journal_.entries()[1].message_id, receipt->message_id);
}

TEST_F(CascadeScenarioTests, Scenario45_PublishWithoutStore_QueuesToTheDeferredChannel) {
  whizbang::DeferredOutboxChannel channel;
  int wakes = 0;
  channel.set_wake([&] { ++wakes; });
  auto storeless = make_storeless(&channel);
  auto first = storeless->publish(created("d1"));
  auto second = storeless->publish(created("d2"));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->status, DeliveryStatus::Delivered);
  EXPECT_EQ(journal_.order(), (std::vector<std::string>{"OrderCreated:d1", "OrderCreated:d2"}));
  EXPECT_EQ(wakes, 2);
  const auto rows = channel.drain_all();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].message_id, first->message_id);  // FIFO, the receipts' ids
  EXPECT_EQ(rows[1].message_id, second->message_id);
  for (const auto& row : rows) {
    EXPECT_TRUE(row.is_event);
    EXPECT_EQ(row.destination, "orders");
  }
  EXPECT_TRUE(channel.drain_all().empty());  // a second drain sends none again
  EXPECT_TRUE(store_.rows.empty());
  // The flush order (deferred rows first) is OutboxDrainWorkerTests'
  // DeferredChannel_IsWrittenAndPublishedByTheNextCycle.
}

TEST_F(CascadeScenarioTests, Scenario45_PublishWithNeitherStoreNorChannel_DropsTheRowWithAWarning) {
  auto storeless = make_storeless(nullptr);
  auto receipt = storeless->publish(created("dropped"));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(journal_.count("OrderCreated"), 1);
  const auto lines = logs_containing("[EventId 103 OutboxRowDropped]");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("[warning]"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(receipt->message_id.to_string()), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace dispatch_test
