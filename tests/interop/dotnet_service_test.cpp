// A C++ service and a Whizbang .NET service on one broker: the commands a .NET service publishes
// (its topology, headers and envelope, written here by hand as its RabbitMQ transport writes
// them) are handled by the C++ receptor exactly once, duplicates included, and the events the
// receptor cascades reach a queue bound the way a .NET subscriber binds, named and encoded as
// .NET reads them (docs/guide/15-dotnet-services.md).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <whizbang/host/service_host.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <set>

#include "interop_messages.hpp"
#include "support/dotnet_reader_rules.hpp"
#include "support/rabbitmq_broker.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace {

using namespace std::chrono_literals;
using std::chrono::system_clock;

constexpr char kOrderId[] = "0195a8f0-0000-7000-8000-000000000001";
constexpr char kFirstId[] = "0195a8f0-1111-7000-8000-000000000002";
constexpr char kSecondId[] = "0195a8f0-2222-7000-8000-000000000003";

// ShipOrder as Whizbang .NET puts it in the body: no "t", C# property names, "O" times, the
// order's stream in md.AggregateId, the message its own correlation.
std::string dotnet_ship_order(const std::string& message_id, const std::string& ship_by) {
  return R"({"v":1,"dc":{"m":2,"s":0,"d":false},"id":")" + message_id + R"(","p":{"OrderId":")" +
         kOrderId + R"(","ShipBy":")" + ship_by + R"("},"h":[{"co":")" + message_id +
         R"(","si":{"sn":"Shop.OrderService","ii":"019cd3a0-3997-776c-b616-20bbc224dcd9",)"
         R"("hn":"web-1","pi":4242},"ts":"2026-03-09T17:30:01.693249+00:00",)"
         R"("to":"inbox.shop.contracts",)"
         R"("md":{"AggregateId":")" +
         kOrderId + R"("}}]})";
}

// What a .NET OrderService's RabbitMQ transport publishes for ShipOrder: to the command inbox of
// its namespace, "inbox.shop.contracts", with the destination's Namespace and Kind as headers
// (and RequireProvisionedEntity, a boolean this raw client does not write; nothing reads it).
bool publish_as_dotnet(whizbang::test::RawAmqp& raw, const std::string& message_id,
                       const std::string& ship_by) {
  return raw.publish("inbox.shop.contracts", "shop.contracts.shiporder",
                     dotnet_ship_order(message_id, ship_by),
                     {{"content_type", "application/json"},
                      {"message_id", message_id},
                      {"correlation_id", message_id}},
                     {{"EnvelopeType",
                       "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Contracts.ShipOrder, "
                       "Shop.Contracts, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]], "
                       "Whizbang.Core"},
                      {"Namespace", "shop.contracts"},
                      {"Kind", "Command"}});
}

system_clock::time_point at_micros(std::int64_t micros) {
  return system_clock::time_point(std::chrono::microseconds(micros));
}

TEST(DotNetServiceTests, CommandsFromDotNet_HandledOnceEach_EventsBackInDotNetsTerms) {
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

  // The first command twice (a .NET publisher retrying), then a second one of the same order's
  // stream: handled in stream order, so a duplicate that got through would be handled before
  // the second command.
  ASSERT_TRUE(publish_as_dotnet(raw, kFirstId, "2026-03-10T09:00:00.0000000+00:00"));
  ASSERT_TRUE(publish_as_dotnet(raw, kFirstId, "2026-03-10T09:00:00.0000000+00:00"));
  ASSERT_TRUE(publish_as_dotnet(raw, kSecondId, "2026-03-11T09:00:00.0000000+01:00"));

  ASSERT_TRUE(log.wait_for(2, 30s)) << "the C++ receptor did not see both .NET commands";
  {
    std::lock_guard lock(log.mutex);
    ASSERT_EQ(log.handled.size(), 2u);
    EXPECT_EQ(log.handled[0].order_id.to_string(), kOrderId);
    EXPECT_EQ(log.handled[0].ship_by, at_micros(1773133200000000));
    EXPECT_EQ(log.handled[1].ship_by, at_micros(1773216000000000)) << "a duplicate was handled";
  }

  // Each handled command's OrderShipped, as the .NET subscriber receives it, caused by and
  // correlated with its command.
  std::set<std::string> causes;
  for (int event = 0; event < 2; ++event) {
    std::optional<whizbang::test::RawMessage> shipped = raw.consume_one(dotnet_queue, 30s);
    ASSERT_TRUE(shipped.has_value()) << "OrderShipped never reached the .NET subscriber's queue";
    EXPECT_EQ(shipped->routing_key, "shop.contracts.ordershipped");
    EXPECT_EQ(shipped->headers["EnvelopeType"],
              "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Contracts.OrderShipped, "
              "Shop.Contracts]], Whizbang.Core");
    EXPECT_EQ(shipped->properties["content_type"], "application/json");
    EXPECT_EQ(shipped->properties["correlation_id"], shipped->headers["CausationId"]);
    causes.insert(shipped->headers["CausationId"]);
    const std::vector<std::string> problems =
        whizbang::test::DotNetReaderRules::problems(shipped->body, {"OrderId", "ShippedAt"});
    EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems) << "\n" << shipped->body;
    rapidjson::Document body;
    body.Parse(shipped->body.c_str());
    ASSERT_TRUE(body.IsObject());
    EXPECT_STREQ(body["p"]["OrderId"].GetString(), kOrderId);
  }
  EXPECT_EQ(causes, (std::set<std::string>{kFirstId, kSecondId}));
  (*host)->stop();
}

}  // namespace
}  // namespace interop_test
