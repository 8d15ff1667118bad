// RabbitMqTransport against the run's broker: the topology and wire shape a .NET Whizbang
// service shares, confirms and returns, dead letters, redelivery after a consumer died, and
// idle connections kept alive (docs/guide/13-rabbitmq.md).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <thread>

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

class RabbitMqTransportTests : public ::testing::Test {
 protected:
  RabbitMqTransportTests() {
    commands_ = unique_name("inbox");
    events_ = unique_name("shop.events");
    options_ = test_rabbitmq_options();
    options_.inbox_exchange = commands_;
  }

  std::string commands_;
  std::string events_;
  RabbitMqOptions options_;
};

TEST_F(RabbitMqTransportTests, CommandSentWhileItsServiceIsDown_WaitsInTheServiceQueue) {
  RabbitMqTransport transport(options_);
  const std::string service = unique_name("orders");
  Received received;
  // The service ran once: its queue and bindings exist from then on.
  {
    ASSERT_TRUE(transport.subscribe(service, {{commands_, "shop.*"}}, received.handler()).ok());
  }
  const TransportMessage sent = test_message("shop::PlaceOrder", false);
  ASSERT_TRUE(transport.publish({commands_, "shop.placeorder", {}}, {&sent, 1}).ok());
  auto again = transport.subscribe(service, {{commands_, "shop.*"}}, received.handler());
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, sent.message_id);
}

// After a broker crash, a restarted broker returned events whose subscriber had bound its queue
// shortly before the crash, until that subscriber reconnected and declared its binding again.
// So for unrouted_grace after connecting, a returned event is not taken for "nobody subscribes".
TEST_F(RabbitMqTransportTests, EventReturnedSoonAfterConnecting_FailsAsSettling_ArrivesOnceBound) {
  options_.unrouted_grace = std::chrono::hours(1);
  RabbitMqTransport transport(options_);
  const TransportMessage sent = test_message("shop::events::OrderCreated", true);
  const TransportDestination destination{events_, "shop.events.ordercreated", {}};
  const absl::Status unrouted = transport.publish(destination, {&sent, 1});
  EXPECT_FALSE(unrouted.ok());
  EXPECT_TRUE(is_transport_settling(unrouted)) << unrouted;
  EXPECT_TRUE(transport.is_ready());

  // Its subscriber declares its binding again: the same event, offered again, arrives.
  Received received;
  auto subscription =
      transport.subscribe(unique_name("mailer"), {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  ASSERT_TRUE(transport.publish(destination, {&sent, 1}).ok());
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, sent.message_id);
}

TEST_F(RabbitMqTransportTests, CommandReturnedAfterTheGrace_FailsNotSettling) {
  options_.unrouted_grace = std::chrono::milliseconds(0);
  RabbitMqTransport transport(options_);
  const TransportMessage sent = test_message("shop::commands::PlaceOrder", false);
  const absl::Status unrouted = transport.publish({commands_, "shop.placeorder", {}}, {&sent, 1});
  EXPECT_FALSE(unrouted.ok());
  EXPECT_FALSE(is_transport_settling(unrouted)) << unrouted;
  EXPECT_NE(unrouted.message().find("the command stays in the outbox"), std::string::npos)
      << unrouted;
}

TEST_F(RabbitMqTransportTests, Topology_QueuePerServiceAndExchange_WithDeadLetters) {
  RabbitMqTransport transport(options_);
  const std::string service = unique_name("inventory");
  Received received;
  auto subscription = transport.subscribe(service, {{events_, ""}, {commands_, "shop.reserve*"}},
                                          received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  RawAmqp raw(options_);
  for (const std::string& exchange : {events_, commands_}) {
    const std::string queue = service + "-" + exchange;
    EXPECT_EQ(rabbitmq_queue_name(service, exchange), queue);
    EXPECT_TRUE(raw.message_count(queue).has_value()) << queue;
    EXPECT_TRUE(raw.exchange_exists(exchange + ".dlx")) << exchange;
    EXPECT_TRUE(raw.message_count(queue + ".dlq").has_value()) << queue;
  }
}

TEST_F(RabbitMqTransportTests, WireShape_PropertiesAndHeadersAsDotNetReadsThem) {
  RabbitMqTransport transport(options_);
  // A queue bound the way a .NET service binds: "{service}-{exchange}", routing key "#".
  RawAmqp raw(options_);
  const std::string queue = unique_name("DotNetService") + "-" + events_;
  ASSERT_TRUE(raw.declare_bound_queue(queue, events_, "#"));
  const Uuid stream = MessageId::mint().uuid();
  const TransportMessage sent =
      test_message("Shop.Events.OrderCreated, Shop.Contracts", true, stream);
  TransportDestination destination{events_, "shop.events.ordercreated", {}};
  destination.metadata["StreamId"] = stream.to_string();
  ASSERT_TRUE(transport.publish(destination, {&sent, 1}).ok());
  std::optional<RawMessage> got = raw.get(queue);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->body, sent.envelope_json);
  EXPECT_EQ(got->exchange, events_);
  EXPECT_EQ(got->routing_key, "shop.events.ordercreated");
  EXPECT_EQ(got->properties["content_type"], "application/json");
  EXPECT_EQ(got->properties["message_id"], sent.message_id.to_string());
  EXPECT_EQ(got->properties["type"], sent.message_type);
  EXPECT_EQ(got->delivery_mode, 2);
  EXPECT_EQ(got->headers["EnvelopeType"],
            "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Events.OrderCreated, "
            "Shop.Contracts]], Whizbang.Core");
  EXPECT_EQ(got->headers["StreamId"], stream.to_string());
}

TEST_F(RabbitMqTransportTests, DeliveryPublishedTheDotNetWay_IsHandled) {
  // .NET sets no `type` property: the type travels in the EnvelopeType header, with the
  // assembly's version, culture and key, which the receiver ignores.
  RabbitMqTransport transport(options_);
  Received received;
  auto subscription =
      transport.subscribe(unique_name("cpp-service"), {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok());
  RawAmqp raw(options_);
  const MessageId id = MessageId::mint();
  const std::string body = R"({"v":1,"id":")" + id.to_string() + R"(","p":{"OrderId":"x"},"h":[]})";
  ASSERT_TRUE(raw.publish(
      events_, "myapp.orders.events.ordercreated", body,
      {{"content_type", "application/json"}, {"message_id", id.to_string()}},
      {{"EnvelopeType",
        "Whizbang.Core.Observability.MessageEnvelope`1[[MyApp.Orders.Events.OrderCreated, "
        "MyApp.Orders, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]], Whizbang.Core"}}));
  ASSERT_TRUE(received.wait_for(1));
  const TransportMessage got = received.messages().at(0);
  EXPECT_EQ(got.message_id, id);
  EXPECT_EQ(got.message_type, "MyApp.Orders.Events.OrderCreated, MyApp.Orders");
  EXPECT_EQ(got.envelope_json, body);
  EXPECT_TRUE(got.is_event);
}

TEST_F(RabbitMqTransportTests, DeliveryWithoutMessageIdProperty_TakesTheEnvelopeId) {
  RabbitMqTransport transport(options_);
  Received received;
  auto subscription =
      transport.subscribe(unique_name("cpp-service"), {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok());
  RawAmqp raw(options_);
  const MessageId id = MessageId::mint();
  ASSERT_TRUE(raw.publish(events_, "shop.events.x",
                          R"({"id":")" + id.to_string() + R"(","t":"shop::events::X","p":{}})", {},
                          {}));
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, id);
  EXPECT_EQ(received.messages().at(0).message_type, "shop::events::X");
}

TEST_F(RabbitMqTransportTests, UndecodableDelivery_GoesToTheDeadLetterQueue_OthersFlow) {
  RabbitMqTransport transport(options_);
  Received received;
  const std::string service = unique_name("billing");
  auto subscription = transport.subscribe(service, {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok());
  RawAmqp raw(options_);
  ASSERT_TRUE(raw.publish(events_, "shop.events.garbage", "not json, no id", {}, {}));
  const TransportMessage good = test_message("shop::events::Good", true);
  ASSERT_TRUE(transport.publish({events_, "shop.events.good", {}}, {&good, 1}).ok());
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, good.message_id);
  std::optional<RawMessage> dead =
      raw.consume_one(rabbitmq_queue_name(service, events_) + ".dlq", std::chrono::seconds(10));
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->body, "not json, no id");
}

TEST_F(RabbitMqTransportTests, WidenedBinding_UnmatchedKeysAreAcknowledgedNotLeft) {
  RabbitMqTransport transport(options_);
  Received received;
  const std::string service = unique_name("stock");
  auto subscription =
      transport.subscribe(service, {{commands_, "shop.reserve*"}}, received.handler());
  ASSERT_TRUE(subscription.ok());
  TransportMessage refund = test_message("shop::Refund", false);
  TransportMessage reserve = test_message("shop::ReserveStock", false);
  ASSERT_TRUE(transport.publish({commands_, "shop.refund", {}}, {&refund, 1}).ok());
  ASSERT_TRUE(transport.publish({commands_, "shop.reservestock", {}}, {&reserve, 1}).ok());
  ASSERT_TRUE(received.wait_for(1));
  subscription->reset();  // ends the consumer: what it did not acknowledge would be back
  RawAmqp raw(options_);
  EXPECT_EQ(raw.message_count(rabbitmq_queue_name(service, commands_)), 0u);
  EXPECT_EQ(received.count(), 1u);
}

TEST_F(RabbitMqTransportTests, ConsumerKilledBeforeItAcknowledged_TheMessageIsRedelivered) {
  const std::string service = unique_name("shipping");
  {
    RabbitMqTransport transport(options_);
    Received declare;
    ASSERT_TRUE(transport.subscribe(service, {{events_, ""}}, declare.handler()).ok());
  }
  const TransportMessage sent = test_message("shop::events::Packed", true);
  {
    RabbitMqTransport transport(options_);
    ASSERT_TRUE(transport.publish({events_, "shop.events.packed", {}}, {&sent, 1}).ok());
  }
  int handling[2];
  ASSERT_EQ(pipe(handling), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The consumer process: takes the delivery, says so, and is killed inside its handler,
    // before the acknowledgement.
    RabbitMqTransport transport(options_);
    auto subscription =
        transport.subscribe(service, {{events_, ""}}, [&](const auto&, auto) -> absl::Status {
          const char byte = 'h';
          if (write(handling[1], &byte, 1) != 1) _exit(3);
          pause();
          return absl::OkStatus();
        });
    pause();
    _exit(0);
  }
  close(handling[1]);
  char byte = 0;
  ASSERT_EQ(read(handling[0], &byte, 1), 1);  // the child is inside its handler
  close(handling[0]);
  kill(child, SIGKILL);
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);

  RabbitMqTransport transport(options_);
  Received received;
  auto subscription = transport.subscribe(service, {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok());
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, sent.message_id);
}

TEST_F(RabbitMqTransportTests, IdlePublisher_KeptAliveThroughHeartbeats) {
  // With a 1 s heartbeat the broker closes a connection that is silent for about 2 s; the
  // transport's keeper services it while nobody publishes.
  options_.heartbeat = std::chrono::seconds(1);
  RabbitMqTransport transport(options_);
  Received received;
  auto subscription =
      transport.subscribe(unique_name("quiet"), {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok());
  const TransportMessage first = test_message("shop::events::Tick", true);
  ASSERT_TRUE(transport.publish({events_, "shop.events.tick", {}}, {&first, 1}).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));  // the idle time is the scenario
  EXPECT_TRUE(transport.is_ready());
  const TransportMessage second = test_message("shop::events::Tick", true);
  const absl::Status status = transport.publish({events_, "shop.events.tick", {}}, {&second, 1});
  EXPECT_TRUE(status.ok()) << status;
  ASSERT_TRUE(received.wait_for(2));
}

TEST_F(RabbitMqTransportTests, WrongPassword_NotReady_ClearErrorWithoutThePassword) {
  options_.password = "sup3r-s3cret-pw";
  options_.reconnect_initial_delay = std::chrono::seconds(5);
  RabbitMqTransport transport(options_);
  EXPECT_FALSE(transport.is_ready());
  const TransportMessage sent = test_message("shop::events::X", true);
  const absl::Status status = transport.publish({events_, "shop.events.x", {}}, {&sent, 1});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("login"), std::string_view::npos) << status;
  EXPECT_EQ(status.message().find("sup3r-s3cret-pw"), std::string_view::npos) << status;
}

TEST_F(RabbitMqTransportTests, LargeBatch_ConfirmedAsAWhole) {
  RabbitMqTransport transport(options_);
  Received received;
  auto subscription = transport.subscribe(unique_name("bulk"), {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok());
  std::vector<TransportMessage> batch;
  for (int i = 0; i < 1000; ++i) batch.push_back(test_message("shop::events::Line", true));
  ASSERT_TRUE(transport.publish({events_, "shop.events.line", {}}, batch).ok());
  ASSERT_TRUE(received.wait_for(batch.size()));
  EXPECT_EQ(received.count(), batch.size());
}

}  // namespace
}  // namespace whizbang::test
