// DispatcherLocalDispatchRecordTests and the two-service lifecycle through the in-process
// transport (docs/guide/04-exactly-once.md: once per service, how records flow).
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>

#include <filesystem>

#include "host_fixture.hpp"

namespace lifecycle_test {
namespace {

using whizbang::Stage;

// The record tests read the stored row before any drain cycle: the publish writes it directly.
void write_through(whizbang::HostOptions& options) {
  options.publish_outside_transaction = whizbang::PublishOutsideTransaction::WriteThrough;
}

class DispatcherLocalDispatchRecordTests : public ::testing::Test {
 protected:
  FireLog log_;
  whizbang::InProcessTransport transport_;
};

TEST_F(DispatcherLocalDispatchRecordTests, SharedReceptor_InTwoServices_RunsInBoth) {
  Service orders(log_, transport_, "orders");
  Service notifications(log_, transport_, "notifications");
  ASSERT_TRUE(orders.host->dispatcher().publish(placed("o-1")).ok());
  settle(orders, notifications);
  EXPECT_EQ(log_.count("SharedProjection", "orders"), 1);
  EXPECT_EQ(log_.count("SharedProjection", "notifications"), 1);
}

TEST_F(DispatcherLocalDispatchRecordTests, OnceAcrossServicesReceptor_InTwoServices_RunsOnce) {
  Service orders(log_, transport_, "orders");
  Service notifications(log_, transport_, "notifications");
  ASSERT_TRUE(orders.host->dispatcher().publish(placed("o-2")).ok());
  settle(orders, notifications);
  EXPECT_EQ(log_.count("ConfirmationEmail"), 1);
  EXPECT_EQ(log_.count("ConfirmationEmail", "orders"), 1);
}

TEST_F(DispatcherLocalDispatchRecordTests,
       Publish_RecordsOneLocalImmediateInlineRecordPerDefaultStageReceptor) {
  Service orders(log_, transport_, "orders", {}, nullptr, write_through);
  auto receipt = orders.host->dispatcher().publish(placed("o-3"));
  ASSERT_TRUE(receipt.ok());
  auto envelope = stored_outbox_envelope(orders, receipt->message_id);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  ASSERT_EQ(envelope->receptor_invocations.size(), 3u);
  for (const auto& record : envelope->receptor_invocations) {
    EXPECT_EQ(record.stage, Stage::LocalImmediateInline);
    EXPECT_EQ(record.service_name, "orders");
  }
  EXPECT_EQ(envelope->receptor_invocations[0].receptor_id, "lifecycle_test::SharedProjection");
}

// Stamped when the row is written, so the drain worker publishes the stored text as it is.
TEST_F(DispatcherLocalDispatchRecordTests, OutboxRow_NamesThePublishingService) {
  Service orders(log_, transport_, "orders", {}, nullptr, write_through);
  auto receipt = orders.host->dispatcher().publish(placed("o-9"));
  ASSERT_TRUE(receipt.ok());
  auto envelope = stored_outbox_envelope(orders, receipt->message_id);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  EXPECT_EQ(envelope->source_service_id, whizbang::service_id_for("orders"));
}

TEST_F(DispatcherLocalDispatchRecordTests, TrackingOff_RecordsNothing) {
  whizbang::GuardrailOptions off;
  off.tracking = whizbang::ReceptorInvocationTracking::Off;
  Service orders(log_, transport_, "orders", off, nullptr, write_through);
  auto receipt = orders.host->dispatcher().publish(placed("o-4"));
  ASSERT_TRUE(receipt.ok());
  auto envelope = stored_outbox_envelope(orders, receipt->message_id);
  ASSERT_TRUE(envelope.ok());
  EXPECT_TRUE(envelope->receptor_invocations.empty());
}

TEST_F(DispatcherLocalDispatchRecordTests,
       TwoServices_RedeliveredMessageFiresNothingTwice_IdempotentFiresEveryTime) {
  Service orders(log_, transport_, "orders");
  Service notifications(log_, transport_, "notifications");
  ASSERT_TRUE(orders.host->dispatcher().publish(placed("o-5")).ok());
  settle(orders, notifications);
  ASSERT_EQ(transport_.published_count(), 1u);
  // The transport delivers the same message again: the inbox drops the duplicate.
  const auto published = transport_.published();
  ASSERT_TRUE(transport_.publish(published[0].destination, {&published[0].message, 1}).ok());
  settle(orders, notifications);
  EXPECT_EQ(log_.count("SharedProjection", "notifications"), 1);
  EXPECT_EQ(log_.count("ConfirmationEmail"), 1);
  EXPECT_EQ(log_.count("ReadModelUpdater", "notifications"), 1);

  // The same stored envelope handled again (records on it): the guardrail stops everyone but
  // the idempotent receptor.
  auto envelope = whizbang::deserialize_envelope(
      published[0].message.envelope_json,
      [](std::string_view name) { return test_registry().find_message(name); });
  ASSERT_TRUE(envelope.ok());
  ASSERT_TRUE(notifications.host->lifecycle().process_inbox(*envelope).ok());
  ASSERT_TRUE(notifications.host->lifecycle().process_inbox(*envelope).ok());
  EXPECT_EQ(log_.count("SharedProjection", "notifications"), 2);  // once more: no record yet
  EXPECT_EQ(log_.count("ReadModelUpdater", "notifications"), 3);  // every time
  EXPECT_EQ(log_.count("ConfirmationEmail"), 1);                  // never again anywhere
}

TEST_F(DispatcherLocalDispatchRecordTests,
       PersistInvocationsDatabase_StopsARedeliveryThatLostItsRecords) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("whizbang-lifecycle-" + whizbang::MessageId::mint().to_string());
  std::filesystem::create_directories(dir);
  whizbang::StoreOptions store_options;
  store_options.instance.service_name = "notifications";
  auto sqlite = whizbang::SqliteWorkStore::open((dir / "notifications.db").string(), store_options);
  ASSERT_TRUE(sqlite.ok()) << sqlite.status();
  whizbang::GuardrailOptions database;
  database.persist = whizbang::PersistInvocations::Database;
  Service notifications(log_, transport_, "notifications", database, *std::move(sqlite));

  whizbang::Envelope envelope = envelope_from(placed("o-6"), "orders");
  ASSERT_TRUE(notifications.host->lifecycle().process_inbox(envelope).ok());
  auto rows = notifications.store->find_receptor_invocations(envelope.message_id,
                                                             "lifecycle_test::SharedProjection");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].service_name, "notifications");

  // A copy of the message without the records (e.g. redelivered from upstream) is still stopped.
  envelope.receptor_invocations.clear();
  ASSERT_TRUE(notifications.host->lifecycle().process_inbox(envelope).ok());
  EXPECT_EQ(log_.count("SharedProjection", "notifications"), 1);
  EXPECT_EQ(log_.count("ReadModelUpdater", "notifications"), 2);
  notifications.host.reset();
  notifications.store.reset();
  std::filesystem::remove_all(dir);
}

TEST_F(DispatcherLocalDispatchRecordTests, DispatchFailingHalfway_CommitsNoneOfItsRows) {
  Service orders(log_, transport_, "orders");
  Checkout command;
  command.order_id = "o-7";
  absl::StatusOr<whizbang::DeliveryReceipt> receipt = orders.host->dispatcher().send(command);
  ASSERT_FALSE(receipt.ok());
  EXPECT_THAT(std::string(receipt.status().message()),
              testing::HasSubstr("receptor lifecycle_test::PoisonPill threw: poison"));
  // OrderPlaced ran its local receptors, but its event-store row rolled back with the dispatch.
  EXPECT_EQ(log_.count("SharedProjection", "orders"), 1);
  auto cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->outbox.published + cycle->outbox.event_store_only, 0u);
  // A dispatch that succeeds commits its rows.
  ASSERT_TRUE(orders.host->dispatcher().publish(placed("o-8")).ok());
  cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok());
  EXPECT_EQ(cycle->outbox.published, 1u);
}

TEST_F(DispatcherLocalDispatchRecordTests, LocalInvokeAskingForAnAbsentType_ErrsAndCommitsNoRows) {
  Service orders(log_, transport_, "orders");
  PlaceOrder command;
  command.order_id = "o-9";
  auto answer = orders.host->dispatcher().local_invoke<PaymentCaptured>(command);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument);
  auto cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok());
  EXPECT_EQ(cycle->outbox.published + cycle->outbox.event_store_only, 0u);
  // Asking for what the receptor returns commits the cascade.
  ASSERT_TRUE(orders.host->dispatcher().local_invoke<OrderPlaced>(command).ok());
  cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok());
  EXPECT_EQ(cycle->outbox.event_store_only, 1u);
}

}  // namespace
}  // namespace lifecycle_test
