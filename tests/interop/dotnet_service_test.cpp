// A C++ service and a Whizbang .NET service on one broker: the command a .NET service publishes
// (its topology, headers and envelope, written here by hand as its RabbitMQ transport writes
// them) is handled by the C++ receptor, and the event the receptor cascades reaches a queue
// bound the way a .NET subscriber binds, named and encoded as .NET reads it
// (docs/guide/13-rabbitmq.md).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <whizbang/host/service_host.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include "interop_messages.hpp"
#include "support/dotnet_reader_rules.hpp"
#include "support/rabbitmq_broker.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace {

using namespace std::chrono_literals;

constexpr char kOrderId[] = "0195a8f0-0000-7000-8000-000000000001";

// ShipOrder as Whizbang .NET puts it in the body: no "t", C# property names, "O" times.
std::string dotnet_ship_order(const std::string& message_id) {
  return R"({"v":1,"dc":{"m":2,"s":0,"d":false},"id":")" + message_id + R"(","p":{"OrderId":")" +
         kOrderId +
         R"(","ShipBy":"2026-03-10T09:00:00.0000000+00:00"},)"
         R"("h":[{"si":{"sn":"Shop.OrderService","ii":"019cd3a0-3997-776c-b616-20bbc224dcd9",)"
         R"("hn":"web-1","pi":4242},"ts":"2026-03-09T17:30:01.693249+00:00","to":"inbox",)"
         R"("md":{"AggregateId":")" +
         kOrderId + R"("}}]})";
}

TEST(DotNetServiceTests, CommandFromDotNet_HandledHere_EventBackInDotNetsTerms) {
  whizbang::RabbitMqOptions options = whizbang::test::test_rabbitmq_options();
  options.inbox_exchange = whizbang::test::unique_name("inbox");
  whizbang::RabbitMqTransport transport(options);
  whizbang::test::RawAmqp raw(options);

  // A .NET subscriber to Shop.Contracts events: queue "{service}-{namespace}", key "#".
  const std::string dotnet_queue = whizbang::test::unique_name("DotNetShop") + "-shop.contracts";
  ASSERT_TRUE(raw.declare_bound_queue(dotnet_queue, "shop.contracts", "#"));

  whizbang::MemoryWorkStore store;
  ShipLog log;
  whizbang::ServiceRegistry services;
  services.add<ShipLog>(log);
  whizbang::HostOptions host_options;
  host_options.service_name = whizbang::test::unique_name("fulfilment");
  host_options.store = &store;
  host_options.transport = &transport;
  host_options.shared_inbox_topic = options.inbox_exchange;
  host_options.poll_interval = 50ms;
  auto host = whizbang::ServiceHost::create(whizbang::generated::whizbang_interop_tests::registry(),
                                            services, host_options);
  ASSERT_TRUE(host.ok()) << host.status();
  ASSERT_TRUE((*host)->start().ok());

  // What a .NET OrderService's RabbitMQ transport publishes for ShipOrder.
  const std::string command_id = "0195a8f0-1111-7000-8000-000000000002";
  ASSERT_TRUE(
      raw.publish(options.inbox_exchange, "shop.contracts.shiporder", dotnet_ship_order(command_id),
                  {{"content_type", "application/json"},
                   {"message_id", command_id},
                   {"correlation_id", command_id}},
                  {{"EnvelopeType",
                    "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Contracts.ShipOrder, "
                    "Shop.Contracts, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]], "
                    "Whizbang.Core"}}));

  ASSERT_TRUE(log.wait_for(1, 30s)) << "the C++ receptor never saw the .NET command";
  {
    std::lock_guard lock(log.mutex);
    EXPECT_EQ(log.handled.at(0).order_id.to_string(), kOrderId);
    EXPECT_EQ(log.handled.at(0).ship_by,
              std::chrono::system_clock::time_point(std::chrono::microseconds(1773133200000000)));
  }

  std::optional<whizbang::test::RawMessage> shipped = raw.consume_one(dotnet_queue, 30s);
  ASSERT_TRUE(shipped.has_value()) << "OrderShipped never reached the .NET subscriber's queue";
  EXPECT_EQ(shipped->routing_key, "shop.contracts.ordershipped");
  EXPECT_EQ(shipped->headers["EnvelopeType"],
            "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Contracts.OrderShipped, "
            "Shop.Contracts]], Whizbang.Core");
  EXPECT_EQ(shipped->properties["content_type"], "application/json");
  const std::vector<std::string> problems =
      whizbang::test::DotNetReaderRules::problems(shipped->body, {"OrderId", "ShippedAt"});
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems) << "\n" << shipped->body;
  rapidjson::Document body;
  body.Parse(shipped->body.c_str());
  ASSERT_TRUE(body.IsObject());
  EXPECT_STREQ(body["p"]["OrderId"].GetString(), kOrderId);
  EXPECT_STREQ(body["p"]["ShippedAt"].GetString(), "2026-03-10T09:00:00.0000000+00:00");
  (*host)->stop();
}

}  // namespace
}  // namespace interop_test
