// A C++ service upgraded to namespace command inboxes while some Whizbang .NET senders still
// publish to the shared "inbox" (docs/migrating-to-namespace-inboxes.md): with
// keep_shared_inbox it takes commands from both, and a command that arrives both ways (a
// sender retrying after its upgrade) is handled once.
#include <gtest/gtest.h>
#include <whizbang/host/service_host.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include "interop_messages.hpp"
#include "support/rabbitmq_broker.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace {

using namespace std::chrono_literals;

constexpr char kSharedInboxOrderId[] = "0195a8f0-0000-7000-8000-00000000a001";
constexpr char kOldSenderId[] = "0195a8f0-1111-7000-8000-00000000a002";
constexpr char kNewSenderId[] = "0195a8f0-2222-7000-8000-00000000a003";
constexpr char kFirstShipBy[] = "2026-03-10T09:00:00.0000000+00:00";
constexpr char kSecondShipBy[] = "2026-03-11T09:00:00.0000000+00:00";

std::string ship_order_body(const std::string& message_id, const std::string& ship_by) {
  return R"({"v":1,"id":")" + message_id + R"(","p":{"OrderId":")" + kSharedInboxOrderId +
         R"(","ShipBy":")" + ship_by + R"("},"h":[{"co":")" + message_id +
         R"(","si":{"sn":"Shop.OrderService","ii":"019cd3a0-3997-776c-b616-20bbc224dcd9",)"
         R"("hn":"web-1","pi":4242},"ts":"2026-03-09T17:30:01.693249+00:00",)"
         R"("md":{"AggregateId":")" +
         kSharedInboxOrderId + R"("}}]})";
}

// An older .NET sender: the shared inbox, EnvelopeType only. An upgraded one: the namespace
// inbox, with the Namespace and Kind headers.
bool publish_ship_order(whizbang::test::RawAmqp& raw, const std::string& exchange,
                        const std::string& message_id, const std::string& ship_by) {
  std::map<std::string, std::string> headers = {
      {"EnvelopeType",
       "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Contracts.ShipOrder, "
       "Shop.Contracts]], Whizbang.Core"}};
  if (exchange == "inbox.shop.contracts") {
    headers["Namespace"] = "shop.contracts";
    headers["Kind"] = "Command";
  }
  return raw.publish(exchange, "shop.contracts.shiporder", ship_order_body(message_id, ship_by),
                     {{"content_type", "application/json"}, {"message_id", message_id}}, headers);
}

TEST(DotNetSharedInboxTests, KeepSharedInbox_CommandsFromOldAndUpgradedSenders_HandledOnceEach) {
  whizbang::RabbitMqOptions options = whizbang::test::test_rabbitmq_options();
  options.inbox_exchange = whizbang::test::unique_name("inbox");
  whizbang::RabbitMqTransport transport(options);
  whizbang::test::RawAmqp raw(options);

  whizbang::MemoryWorkStore store;
  ShipLog log;
  whizbang::ServiceRegistry services;
  services.add<ShipLog>(log);
  whizbang::HostOptions host_options;
  host_options.service_name = whizbang::test::unique_name("fulfilment");
  host_options.store = &store;
  host_options.transport = &transport;
  host_options.shared_inbox_topic = options.inbox_exchange;
  host_options.command_inboxes.keep_shared_inbox = true;
  host_options.poll_interval = 50ms;
  auto host = whizbang::ServiceHost::create(whizbang::generated::whizbang_interop_tests::registry(),
                                            services, host_options);
  ASSERT_TRUE(host.ok()) << host.status();
  ASSERT_TRUE((*host)->start().ok());

  // An older sender on the shared inbox.
  ASSERT_TRUE(publish_ship_order(raw, options.inbox_exchange, kOldSenderId, kFirstShipBy));
  ASSERT_TRUE(log.wait_for(1, 30s)) << "the command on the shared inbox was not handled";
  // The same sender after its upgrade: it retries the first command on the namespace inbox,
  // then sends the second. One queue delivers both in order, so had the retry been handled,
  // it would be the second handling.
  ASSERT_TRUE(publish_ship_order(raw, "inbox.shop.contracts", kOldSenderId, kFirstShipBy));
  ASSERT_TRUE(publish_ship_order(raw, "inbox.shop.contracts", kNewSenderId, kSecondShipBy));
  ASSERT_TRUE(log.wait_for(2, 30s)) << "the command on the namespace inbox was not handled";
  {
    std::lock_guard lock(log.mutex);
    ASSERT_EQ(log.handled.size(), 2u);
    EXPECT_EQ(log.handled[0].order_id.to_string(), kSharedInboxOrderId);
    EXPECT_EQ(log.handled[1].ship_by,
              std::chrono::system_clock::time_point(std::chrono::microseconds(1773219600000000)))
        << "the retried command was handled again";
  }
  (*host)->stop();
}

}  // namespace
}  // namespace interop_test
