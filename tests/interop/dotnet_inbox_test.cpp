// A delivery from a Whizbang .NET service, as the inbox stores and hands it on: under the
// type's wire name (whatever .NET called it), in the stream .NET put in md.AggregateId, and
// handled with its whole payload (docs/guide/15-dotnet-services.md).
#include <gtest/gtest.h>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/store/store_reader.hpp>
#include <whizbang/workers/inbox_worker.hpp>

#include "interop_messages.hpp"
#include "interop_registry.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace {

// What the RabbitMQ transport makes of a .NET delivery: the type from EnvelopeType (assembly
// qualified), no stream (.NET's bulk publish sends no StreamId header), the body as sent.
whizbang::TransportMessage dotnet_delivery() {
  whizbang::TransportMessage message;
  message.message_id = whizbang::MessageId::from_trusted(
      *whizbang::Uuid::parse("0195a8f0-1111-7000-8000-000000000002"));
  message.message_type = "Shop.Contracts.ShipOrder, Shop.Contracts";
  message.envelope_json = R"({"v":1,"id":"0195a8f0-1111-7000-8000-000000000002",)"
                          R"("p":{"OrderId":"0195a8f0-0000-7000-8000-000000000001",)"
                          R"("ShipBy":"2026-03-10T09:00:00.0000000+00:00"},)"
                          R"("h":[{"si":{"sn":"Shop.OrderService",)"
                          R"("ii":"019cd3a0-3997-776c-b616-20bbc224dcd9","hn":"web-1","pi":7},)"
                          R"("ts":"2026-03-09T17:30:01.693249+00:00",)"
                          R"("md":{"AggregateId":"0195a8f0-0000-7000-8000-000000000001"}}]})";
  return message;
}

TEST(DotNetInboxTests, DotNetDelivery_StoredUnderTheWireName_InTheAggregateStream) {
  whizbang::MemoryWorkStore store;
  std::vector<whizbang::Envelope> handled;
  whizbang::InboxWorkerOptions options;
  options.service_name = "fulfilment";
  whizbang::InboxWorker worker(
      store, resolve,
      [&](whizbang::InboxHandling& handling) {
        handled.push_back(handling.envelope);
        return absl::OkStatus();
      },
      options);
  const whizbang::TransportMessage delivery = dotnet_delivery();
  ASSERT_TRUE(worker.receive({&delivery, 1}).ok());

  auto row = whizbang::reader_of(store)->find_inbox_row(delivery.message_id);
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(row->has_value());
  EXPECT_EQ((*row)->message.message_type, "Shop.Contracts.ShipOrder");
  EXPECT_EQ((*row)->message.handler_name, "ShipOrderHandler");
  ASSERT_TRUE((*row)->message.stream_id.has_value());
  EXPECT_EQ((*row)->message.stream_id->to_string(), "0195a8f0-0000-7000-8000-000000000001");

  absl::StatusOr<whizbang::InboxCycleResult> cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->handled, 1u);
  ASSERT_EQ(handled.size(), 1u);
  const ShipOrder* command = handled[0].payload.get_if<ShipOrder>();
  ASSERT_NE(command, nullptr);
  EXPECT_EQ(command->order_id.to_string(), "0195a8f0-0000-7000-8000-000000000001");
}

// A type this service does not know is refused at the inbox's door (kept once as a dead letter:
// the transport here keeps none), never stored under its id nor handled with an empty payload.
TEST(DotNetInboxTests, DeliveryOfAnUnknownDotNetType_IsDeadLetteredNotHandledEmpty) {
  whizbang::MemoryWorkStore store;
  int handled = 0;
  whizbang::InboxWorker worker(
      store, resolve,
      [&](whizbang::InboxHandling&) {
        ++handled;
        return absl::OkStatus();
      },
      whizbang::InboxWorkerOptions{});
  whizbang::TransportMessage delivery = dotnet_delivery();
  delivery.message_type = "Shop.Contracts.CancelOrder, Shop.Contracts";
  ASSERT_TRUE(worker.receive({&delivery, 1}).ok());
  absl::StatusOr<whizbang::InboxCycleResult> cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->handled, 0u);
  EXPECT_EQ(handled, 0);
  auto letters = store.dead_letters(10);
  ASSERT_TRUE(letters.ok() && letters->size() == 1u);
  EXPECT_NE(letters->front().error.find("knows no message type"), std::string::npos);
}

}  // namespace
}  // namespace interop_test
