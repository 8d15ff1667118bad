// The RabbitMQ transport's names and URL handling, without a broker.
#include <gtest/gtest.h>
#include <whizbang/transport/rabbitmq/rabbitmq_options.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_topology.hpp>
#include <whizbang/transport/transport.hpp>

#include <cstdlib>

namespace whizbang {
namespace {

TEST(RabbitMqTopologyTests, Names_FollowTheDotNetConvention) {
  EXPECT_EQ(rabbitmq_queue_name("OrderService", "myapp.orders.events"),
            "OrderService-myapp.orders.events");
  EXPECT_EQ(rabbitmq_dead_letter_exchange("inbox"), "inbox.dlx");
  EXPECT_EQ(rabbitmq_dead_letter_queue("OrderService-inbox"), "OrderService-inbox.dlq");
}

TEST(RabbitMqTopologyTests, BindingKeys_DotAlignedOrWidened) {
  EXPECT_EQ(rabbitmq_binding_key(""), "#");
  EXPECT_EQ(rabbitmq_binding_key("*"), "#");
  EXPECT_EQ(rabbitmq_binding_key("shop.orders"), "shop.orders");
  EXPECT_EQ(rabbitmq_binding_key("shop.*"), "shop.#");
  EXPECT_EQ(rabbitmq_binding_key("shop.reserve*"), "shop.#");
  EXPECT_EQ(rabbitmq_binding_key("shop.a.b*"), "shop.a.#");
  EXPECT_EQ(rabbitmq_binding_key("shop*"), "#");
}

TEST(RabbitMqTopologyTests, WidenedBinding_CoversEverythingThePatternMatches) {
  // Every key the Whizbang pattern matches must reach the queue through the AMQP binding.
  for (const char* key : {"shop.reserve", "shop.reservestock", "shop.reserve.more"}) {
    EXPECT_TRUE(routing_key_matches("shop.reserve*", key)) << key;
    const std::string binding = rabbitmq_binding_key("shop.reserve*");
    EXPECT_EQ(std::string_view(key).substr(0, binding.size() - 1), "shop.") << key;
  }
}

TEST(RabbitMqTopologyTests, EnvelopeType_RoundTripsAndDropsAssemblyDetails) {
  EXPECT_EQ(rabbitmq_envelope_type("Shop.Events.OrderCreated, Shop"),
            "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Events.OrderCreated, Shop]], "
            "Whizbang.Core");
  EXPECT_EQ(message_type_from_envelope_type(rabbitmq_envelope_type("shop::events::Created")),
            "shop::events::Created");
  EXPECT_EQ(message_type_from_envelope_type(
                "Whizbang.Core.Observability.MessageEnvelope`1[[MyApp.Orders.OrderCreated, "
                "MyApp.Orders, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]], "
                "Whizbang.Core, Version=0.181.5.0, Culture=neutral, PublicKeyToken=null"),
            "MyApp.Orders.OrderCreated, MyApp.Orders");
  EXPECT_EQ(message_type_from_envelope_type("NoGenericArgument"), "");
}

TEST(RabbitMqOptionsTests, Url_Parsed_PasswordNeverDescribed) {
  auto options = rabbitmq_options_from_url("amqp://app:s%40cret@broker.local:5673/shop");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->host, "broker.local");
  EXPECT_EQ(options->port, 5673);
  EXPECT_EQ(options->vhost, "shop");
  EXPECT_EQ(options->user, "app");
  EXPECT_EQ(options->password, "s@cret");
  EXPECT_FALSE(options->tls.enabled);
  EXPECT_EQ(options->describe(), "amqp://app@broker.local:5673/shop");
}

TEST(RabbitMqOptionsTests, AmqpsUrl_TurnsTlsOn) {
  auto options = rabbitmq_options_from_url("amqps://broker.local");
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->tls.enabled);
  EXPECT_EQ(options->port, 5671);
  EXPECT_TRUE(options->tls.verify_peer);
  EXPECT_TRUE(options->tls.verify_hostname);
}

TEST(RabbitMqOptionsTests, BadUrl_ErrorWithoutTheUrl) {
  auto options = rabbitmq_options_from_url("http://user:hunter2@host");
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().message().find("hunter2"), std::string_view::npos);
}

TEST(RabbitMqOptionsTests, EmptyUrl_ReadsTheEnvironment) {
  const char* saved = std::getenv("WHIZBANG_AMQP_URL");
  const std::string restore = saved ? saved : "";
  setenv("WHIZBANG_AMQP_URL", "amqp://envuser:pw@envhost:1234/", 1);
  auto options = rabbitmq_options_from_url("");
  if (saved) {
    setenv("WHIZBANG_AMQP_URL", restore.c_str(), 1);
  } else {
    unsetenv("WHIZBANG_AMQP_URL");
  }
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->host, "envhost");
  EXPECT_EQ(options->port, 1234);
}

}  // namespace
}  // namespace whizbang
