// One contract for every transport (docs/guide/13-rabbitmq.md): what a publisher and a
// subscriber may count on, whether the services share a process (InProcessTransport) or a
// RabbitMQ broker (RabbitMqTransport, against the test run's broker).
#include <gtest/gtest.h>
#include <whizbang/transport/in_process_transport.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <memory>

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

enum class Kind { InProcess, RabbitMq };

std::string kind_name(const ::testing::TestParamInfo<Kind>& info) {
  return info.param == Kind::InProcess ? "InProcess" : "RabbitMq";
}

class TransportContractTests : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    // Names of this test only: exchanges, queues and services of other tests never interfere.
    commands_ = unique_name("inbox");
    events_ = unique_name("shop.events");
    if (GetParam() == Kind::InProcess) {
      transport_ = std::make_unique<InProcessTransport>();
    } else {
      RabbitMqOptions options = test_rabbitmq_options();
      options.inbox_exchange = commands_;
      // The contract of a settled broker: a returned event is dropped at once (the grace after
      // a reconnect has tests of its own in rabbitmq_transport_test.cpp).
      options.unrouted_grace = std::chrono::milliseconds(0);
      transport_ = std::make_unique<RabbitMqTransport>(options);
    }
  }

  std::unique_ptr<TransportSubscription> subscribe(const std::string& service,
                                                   std::vector<TransportBinding> bindings,
                                                   Transport::DeliveryHandler handler) {
    auto subscription = transport_->subscribe(service, std::move(bindings), std::move(handler));
    EXPECT_TRUE(subscription.ok()) << subscription.status();
    return subscription.ok() ? *std::move(subscription) : nullptr;
  }

  TransportDestination event_destination(std::string key) { return {events_, std::move(key), {}}; }
  TransportDestination command_destination(std::string key) {
    return {commands_, std::move(key), {}};
  }

  std::string commands_;
  std::string events_;
  std::unique_ptr<Transport> transport_;
};

INSTANTIATE_TEST_SUITE_P(Transports, TransportContractTests,
                         ::testing::Values(Kind::InProcess, Kind::RabbitMq), kind_name);

TEST_P(TransportContractTests, Publish_ReachesTheBoundSubscription_WithIdTypeBodyAndStream) {
  Received received;
  auto subscription = subscribe(unique_name("inventory"), {{events_, ""}}, received.handler());
  const Uuid stream = MessageId::mint().uuid();
  const TransportMessage sent = test_message("shop::events::OrderCreated", true, stream);
  ASSERT_TRUE(transport_->is_ready());
  ASSERT_TRUE(transport_->publish(event_destination("shop.events.ordercreated"), {&sent, 1}).ok());
  ASSERT_TRUE(received.wait_for(1));
  const TransportMessage got = received.messages().at(0);
  EXPECT_EQ(got.message_id, sent.message_id);
  EXPECT_EQ(got.message_type, sent.message_type);
  EXPECT_EQ(got.envelope_json, sent.envelope_json);
  ASSERT_TRUE(got.stream_id.has_value());
  EXPECT_EQ(*got.stream_id, stream);
  EXPECT_TRUE(got.is_event);
  EXPECT_EQ(received.destinations().at(0).address, events_);
  EXPECT_EQ(received.destinations().at(0).routing_key, "shop.events.ordercreated");
}

TEST_P(TransportContractTests, Command_ArrivesAsACommand) {
  Received received;
  auto subscription =
      subscribe(unique_name("orders"), {{commands_, "shop.commands.*"}}, received.handler());
  const TransportMessage sent = test_message("shop::commands::PlaceOrder", false);
  ASSERT_TRUE(
      transport_->publish(command_destination("shop.commands.placeorder"), {&sent, 1}).ok());
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_FALSE(received.messages().at(0).is_event);
  EXPECT_FALSE(received.messages().at(0).stream_id.has_value());
}

TEST_P(TransportContractTests, EventNobodySubscribesTo_IsDropped_ThePublishSucceeds) {
  const TransportMessage sent = test_message("shop::events::Nobody", true);
  EXPECT_TRUE(transport_->publish(event_destination("shop.events.nobody"), {&sent, 1}).ok());
}

TEST_P(TransportContractTests, CommandNoSubscriptionIsBoundTo_FailsThePublish) {
  // With no consumer bound, the outbox must keep the row: the publish fails.
  const TransportMessage sent = test_message("shop::commands::Orphan", false);
  const absl::Status status =
      transport_->publish(command_destination("shop.commands.orphan"), {&sent, 1});
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
}

TEST_P(TransportContractTests, PrefixPattern_MatchesItsPrefixOnly) {
  Received received;
  auto subscription =
      subscribe(unique_name("inventory"), {{commands_, "shop.reserve*"}}, received.handler());
  // "shop.refund" is not under the prefix; on RabbitMQ the binding is widened to "shop.#" and
  // the subscription filters it out. Published first: had it got through, it would arrive first.
  TransportMessage refund = test_message("shop::Refund", false);
  TransportMessage reserve = test_message("shop::ReserveStock", false);
  TransportMessage bare = test_message("shop::Reserve", false);
  const absl::Status refund_status =
      transport_->publish(command_destination("shop.refund"), {&refund, 1});
  ASSERT_TRUE(transport_->publish(command_destination("shop.reservestock"), {&reserve, 1}).ok());
  ASSERT_TRUE(transport_->publish(command_destination("shop.reserve"), {&bare, 1}).ok());
  ASSERT_TRUE(received.wait_for(2));
  const auto got = received.messages();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].message_id, reserve.message_id);
  EXPECT_EQ(got[1].message_id, bare.message_id);
  // In process the unmatched command fails at once; the broker routed it to the widened
  // binding, so it was "delivered" and dropped by the subscription's filter.
  if (GetParam() == Kind::InProcess) {
    EXPECT_FALSE(refund_status.ok());
  }
}

TEST_P(TransportContractTests, ExactAndEmptyPatterns) {
  Received exact;
  Received everything;
  auto exact_subscription =
      subscribe(unique_name("audit"), {{events_, "shop.events.paid"}}, exact.handler());
  auto all_subscription = subscribe(unique_name("archive"), {{events_, ""}}, everything.handler());
  TransportMessage shipped = test_message("shop::events::Shipped", true);
  TransportMessage paid = test_message("shop::events::Paid", true);
  ASSERT_TRUE(transport_->publish(event_destination("shop.events.shipped"), {&shipped, 1}).ok());
  ASSERT_TRUE(transport_->publish(event_destination("shop.events.paid"), {&paid, 1}).ok());
  ASSERT_TRUE(everything.wait_for(2));
  ASSERT_TRUE(exact.wait_for(1));
  EXPECT_EQ(exact.messages().at(0).message_id, paid.message_id);
  EXPECT_EQ(everything.messages().at(0).message_id, shipped.message_id);
}

TEST_P(TransportContractTests, TwoServices_EachReceiveTheEvent) {
  Received first;
  Received second;
  auto a = subscribe(unique_name("billing"), {{events_, ""}}, first.handler());
  auto b = subscribe(unique_name("shipping"), {{events_, ""}}, second.handler());
  const TransportMessage sent = test_message("shop::events::OrderPlaced", true);
  ASSERT_TRUE(transport_->publish(event_destination("shop.events.orderplaced"), {&sent, 1}).ok());
  ASSERT_TRUE(first.wait_for(1));
  ASSERT_TRUE(second.wait_for(1));
  EXPECT_EQ(first.messages().at(0).message_id, second.messages().at(0).message_id);
}

TEST_P(TransportContractTests, StreamOrder_KeptAcrossBatches) {
  Received received;
  auto subscription = subscribe(unique_name("ledger"), {{events_, ""}}, received.handler());
  const Uuid stream = MessageId::mint().uuid();
  std::vector<MessageId> order;
  for (int batch = 0; batch < 10; ++batch) {
    std::vector<TransportMessage> messages;
    for (int i = 0; i < 20; ++i) {
      messages.push_back(test_message("shop::events::Posted", true, stream));
      order.push_back(messages.back().message_id);
    }
    ASSERT_TRUE(transport_->publish(event_destination("shop.events.posted"), messages).ok());
  }
  ASSERT_TRUE(received.wait_for(order.size()));
  const auto got = received.messages();
  ASSERT_EQ(got.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(got[i].message_id, order[i]) << i;
}

TEST_P(TransportContractTests, FailingHandler_TheMessageComesAgainUntilHandled) {
  // The first attempt fails. In process the publish fails and the publisher (the outbox)
  // publishes again; through a broker the delivery is requeued and redelivered.
  std::atomic<int> attempts{0};
  Received received;
  auto subscription = subscribe(
      unique_name("payments"), {{commands_, ""}}, received.handler([&](const TransportMessage&) {
        return ++attempts == 1 ? absl::UnavailableError("store down") : absl::OkStatus();
      }));
  const TransportMessage sent = test_message("shop::commands::Charge", false);
  absl::Status status =
      transport_->publish(command_destination("shop.commands.charge"), {&sent, 1});
  if (!status.ok()) {
    status = transport_->publish(command_destination("shop.commands.charge"), {&sent, 1});
  }
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, sent.message_id);
  EXPECT_EQ(attempts.load(), 2);
}

TEST_P(TransportContractTests, ThrowingHandler_IsAFailureNotACrash) {
  std::atomic<int> attempts{0};
  Received received;
  auto subscription = subscribe(unique_name("mailer"), {{commands_, ""}},
                                received.handler([&](const TransportMessage&) -> absl::Status {
                                  if (++attempts == 1) throw std::runtime_error("smtp down");
                                  return absl::OkStatus();
                                }));
  const TransportMessage sent = test_message("shop::commands::Mail", false);
  absl::Status status = transport_->publish(command_destination("shop.commands.mail"), {&sent, 1});
  if (!status.ok()) {
    EXPECT_NE(status.message().find("smtp down"), std::string_view::npos) << status;
    status = transport_->publish(command_destination("shop.commands.mail"), {&sent, 1});
  }
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_TRUE(received.wait_for(1));
}

TEST_P(TransportContractTests, EndedSubscription_ReceivesNothingMore) {
  Received received;
  const std::string service = unique_name("reports");
  {
    auto subscription = subscribe(service, {{events_, ""}}, received.handler());
    const TransportMessage first = test_message("shop::events::Daily", true);
    ASSERT_TRUE(transport_->publish(event_destination("shop.events.daily"), {&first, 1}).ok());
    ASSERT_TRUE(received.wait_for(1));
  }
  const TransportMessage second = test_message("shop::events::Daily", true);
  ASSERT_TRUE(transport_->publish(event_destination("shop.events.daily"), {&second, 1}).ok());
  // The subscription's handler can no longer be called: it ended before the publish.
  EXPECT_EQ(received.count(), 1u);
}

}  // namespace
}  // namespace whizbang::test
