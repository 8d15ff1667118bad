// RabbitMQ's settle spans (docs/guide/18-tracing.md): a subscriber that hands back its tracer and
// each delivery's receive span (DeliveryOutcome::settle_parents) gets a `settle` span per traced
// delivery, a child of that span, naming the ack, the reject (dead-lettered) or the nack
// (requeued) that settled it on the broker. Synchronised on the spans arriving, never on sleeps.
#include <gtest/gtest.h>
#include <whizbang/observability/trace_names.hpp>
#include <whizbang/observability/tracer.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <condition_variable>
#include <mutex>

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"
#include "support/recording_span_sink.hpp"

namespace whizbang::test {
namespace {

namespace keys = span_attributes;
namespace values = span_values;
using whizbang_test::string_attribute;
using namespace std::chrono_literals;

// Keeps finished spans; a test waits until enough arrived.
class WaitingSink final : public SpanSink {
 public:
  void on_end(SpanData span) override {
    std::lock_guard lock(mutex_);
    spans_.push_back(std::move(span));
    arrived_.notify_all();
  }
  void flush(std::chrono::milliseconds) override {}
  std::vector<SpanData> wait_for(std::size_t count) {
    std::unique_lock lock(mutex_);
    arrived_.wait_for(lock, 20s, [&] { return spans_.size() >= count; });
    return spans_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<SpanData> spans_;
};

class RabbitMqSettleSpansTests : public ::testing::Test {
 protected:
  RabbitMqSettleSpansTests() {
    options_ = test_rabbitmq_options();
    options_.inbox_exchange = unique_name("inbox");
    events_ = unique_name("shop.events");
  }

  // A parent context per message, as the inbox's receive spans would be.
  TraceContext parent_of(std::size_t n) const {
    TraceContext context = tracer_.start_context(nullptr);
    context.span_id = derive_span_id("receive " + std::to_string(n));
    return context;
  }

  RabbitMqOptions options_;
  std::string events_;
  std::shared_ptr<WaitingSink> sink_ = std::make_shared<WaitingSink>();
  Tracer tracer_{sink_, 1.0};
};

TEST_F(RabbitMqSettleSpansTests, AckedAndRejectedDeliveries_EachASettleSpanUnderItsReceiveSpan) {
  RabbitMqTransport transport(options_);
  std::mutex mutex;
  std::map<MessageId, TraceContext> parents;
  const TransportMessage good = test_message("shop::events::Good", true);
  const TransportMessage bad = test_message("shop::events::Bad", true);
  auto subscription = transport.subscribe(
      unique_name("billing"), {{events_, ""}},
      [&](const TransportDestination&, std::span<const TransportMessage> batch) {
        DeliveryOutcome outcome;
        outcome.tracer = &tracer_;
        std::lock_guard lock(mutex);
        for (std::size_t i = 0; i < batch.size(); ++i) {
          const TraceContext parent = parent_of(parents.size());
          parents[batch[i].message_id] = parent;
          outcome.settle_parents.push_back(parent);
          if (batch[i].message_id == bad.message_id) outcome.refused.push_back({i, "bad"});
        }
        return outcome;
      });
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  ASSERT_TRUE(transport.publish({events_, "shop.events.good", {}}, {&good, 1}).ok());
  ASSERT_TRUE(transport.publish({events_, "shop.events.bad", {}}, {&bad, 1}).ok());

  const std::vector<SpanData> spans = sink_->wait_for(2);
  ASSERT_EQ(spans.size(), 2u);
  std::lock_guard lock(mutex);
  for (const SpanData& span : spans) {
    const auto id = string_attribute(span, keys::kMessagingMessageId);
    ASSERT_TRUE(id.has_value());
    const bool is_bad = *id == bad.message_id.to_string();
    const TraceContext& parent = parents.at(is_bad ? bad.message_id : good.message_id);
    EXPECT_EQ(span.name, std::string(span_names::kSettlePrefix) + events_);
    EXPECT_EQ(span.kind, SpanKind::Client);
    EXPECT_EQ(span.context.trace_id, parent.trace_id);
    EXPECT_EQ(span.parent_span_id, parent.span_id);
    EXPECT_EQ(string_attribute(span, keys::kMessagingSystem), values::kSystemRabbitMq);
    EXPECT_EQ(string_attribute(span, keys::kMessagingOperationType), values::kOperationSettle);
    EXPECT_EQ(string_attribute(span, keys::kMessagingOperationName),
              is_bad ? values::kSettleReject : values::kSettleAck);
    EXPECT_EQ(string_attribute(span, keys::kMessagingDestinationName), events_);
    EXPECT_EQ(string_attribute(span, keys::kRabbitMqRoutingKey),
              is_bad ? "shop.events.bad" : "shop.events.good");
    EXPECT_NE(span.status, SpanStatusCode::Error);
  }
}

TEST_F(RabbitMqSettleSpansTests, AFailedDelivery_IsNackedAndRequeued_ThenAcked) {
  RabbitMqTransport transport(options_);
  std::mutex mutex;
  int calls = 0;
  const TransportMessage message = test_message("shop::events::Flaky", true);
  auto subscription = transport.subscribe(
      unique_name("billing"), {{events_, ""}},
      [&](const TransportDestination&, std::span<const TransportMessage> batch) {
        std::lock_guard lock(mutex);
        DeliveryOutcome outcome(++calls == 1 ? absl::UnavailableError("store down")
                                             : absl::OkStatus());
        outcome.tracer = &tracer_;
        for (std::size_t i = 0; i < batch.size(); ++i)
          outcome.settle_parents.push_back(parent_of(0));
        return outcome;
      });
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  ASSERT_TRUE(transport.publish({events_, "shop.events.flaky", {}}, {&message, 1}).ok());

  const std::vector<SpanData> spans = sink_->wait_for(2);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(string_attribute(spans[0], keys::kMessagingOperationName), values::kSettleNack);
  EXPECT_EQ(string_attribute(spans[1], keys::kMessagingOperationName), values::kSettleAck);
  for (const SpanData& span : spans) {
    EXPECT_EQ(string_attribute(span, keys::kMessagingMessageId), message.message_id.to_string());
  }
}

TEST_F(RabbitMqSettleSpansTests, WithoutATracerInTheOutcome_NothingIsTraced) {
  RabbitMqTransport transport(options_);
  Received received;
  auto subscription =
      transport.subscribe(unique_name("billing"), {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  const TransportMessage message = test_message("shop::events::Plain", true);
  ASSERT_TRUE(transport.publish({events_, "shop.events.plain", {}}, {&message, 1}).ok());
  ASSERT_TRUE(received.wait_for(1));
  subscription->reset();  // the delivery is settled before the subscription ends
  EXPECT_TRUE(sink_->wait_for(0).empty());
}

}  // namespace
}  // namespace whizbang::test
