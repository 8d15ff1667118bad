// A service that publishes an event it also handles, over a real broker
// (docs/guide/13-rabbitmq.md, "Own events"): by default the copy the broker brings back is dropped
// before it is stored, counted; with the type listed as local-only the service does not bind it,
// so the broker carries it once and brings none back. Either way its receptors fire once, locally,
// and another service's event of the same type is still handled.
#include <gtest/gtest.h>
#include <whizbang/dispatch/outbox_routing.hpp>
#include <whizbang/host/service_host.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <chrono>
#include <functional>
#include <thread>

#include "support/log_capture.hpp"
#include "support/rabbitmq_broker.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace own_events {
namespace {

using namespace std::chrono_literals;

const whizbang::Registry& registry() {
  return whizbang::generated::whizbang_own_events_tests::registry();
}

// Waits (polling a condition, never a fixed sleep) until `done` or 30 s have passed.
bool eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// One service: its store, receptors' mailbox, metrics and host on the run's broker.
struct Service {
  Service(whizbang::Transport& transport, std::string service_name,
          const std::function<void(whizbang::HostOptions&)>& adjust = {})
      : name(std::move(service_name)) {
    services.add<Mailbox>(mailbox);
    whizbang::HostOptions options;
    options.service_name = this->name;
    options.store = &store;
    options.transport = &transport;
    options.poll_interval = 20ms;
    options.metrics = metrics;
    options.logger = log.logger;
    if (adjust) adjust(options);
    auto created = whizbang::ServiceHost::create(registry(), services, std::move(options));
    EXPECT_TRUE(created.ok()) << created.status();
    if (created.ok()) host = *std::move(created);
  }
  absl::Status register_customer(const std::string& id) {
    CustomerRegistered registered;
    registered.customer_id = id;
    return host->dispatcher().publish(registered).status();
  }
  std::int64_t own_dropped() const {
    return metrics->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                            whizbang::metric_names::kInboxOwnEventDropped);
  }

  std::string name;
  whizbang::MemoryWorkStore store;
  Mailbox mailbox;
  whizbang::ServiceRegistry services;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics =
      std::make_shared<whizbang::InMemoryMetrics>();
  whizbang_test::LogCapture log;
  std::unique_ptr<whizbang::ServiceHost> host;
};

// The queue a service's subscription to the event's exchange would have.
std::string event_queue(const Service& service) {
  return whizbang::rabbitmq_queue_name(
      service.name,
      whizbang::default_destination(whizbang::MessageTraits<CustomerRegistered>::info()));
}

TEST(OwnEventsTests, DropOn_OwnEventBackFromTheBroker_DroppedUnstored_AnotherServicesHandled) {
  whizbang::RabbitMqTransport transport(whizbang::test::test_rabbitmq_options());
  const auto drop = [](whizbang::HostOptions& options) {
    options.own_events.drop_on_receipt = true;
  };
  Service orders(transport, whizbang::test::unique_name("orders"), drop);
  Service crm(transport, whizbang::test::unique_name("crm"), drop);
  ASSERT_TRUE(orders.host && crm.host);
  ASSERT_EQ(orders.host->bindings().size(), 1u);  // it handles the type: bound
  ASSERT_TRUE(orders.host->start().ok());
  ASSERT_TRUE(crm.host->start().ok());

  ASSERT_TRUE(orders.register_customer("c-1").ok());
  // Its receptors fire locally when it publishes; the broker brings the event back, dropped.
  ASSERT_TRUE(eventually([&] { return orders.own_dropped() == 1; }))
      << "orders' own event did not come back to be dropped";
  ASSERT_TRUE(eventually([&] { return crm.mailbox.counted.load() == 1; }));
  // The other service's event of the same type still reaches it through its inbox.
  ASSERT_TRUE(crm.register_customer("c-2").ok());
  ASSERT_TRUE(eventually([&] { return orders.mailbox.counted.load() == 2; }));
  ASSERT_TRUE(eventually([&] { return crm.own_dropped() == 1; }));
  orders.host->stop();
  crm.host->stop();

  EXPECT_EQ(orders.mailbox.welcomes.load(), 1);  // c-1 here; c-2's welcome was crm's
  EXPECT_EQ(crm.mailbox.welcomes.load(), 1);
  EXPECT_EQ(orders.mailbox.counted.load(), 2);
  EXPECT_EQ(crm.mailbox.counted.load(), 2);
  EXPECT_EQ(orders.own_dropped(), 1);
  EXPECT_EQ(orders.host->delivery_health().own_events_dropped, 1u);
  // Dropped before the inbox: never stored, so never skipped there as this service's own.
  EXPECT_EQ(orders.host->delivery_health().duplicates_dropped, 0u);
  EXPECT_EQ(orders.log.count("SameServiceInboxSkip"), 0);
}

TEST(OwnEventsTests, ByDefault_OwnEventBackFromTheBroker_StoredThenSkippedAsBefore) {
  whizbang::RabbitMqTransport transport(whizbang::test::test_rabbitmq_options());
  Service orders(
      transport, whizbang::test::unique_name("orders"),
      [](whizbang::HostOptions& options) { options.own_events.drop_on_receipt = false; });
  ASSERT_TRUE(orders.host);
  ASSERT_TRUE(orders.host->start().ok());
  ASSERT_TRUE(orders.register_customer("c-1").ok());
  // Back through the inbox, where each stage skips this service's own message (EventId 10).
  ASSERT_TRUE(eventually([&] { return orders.log.count("SameServiceInboxSkip") > 0; }))
      << "the own event did not come back through the inbox";
  orders.host->stop();
  EXPECT_EQ(orders.mailbox.welcomes.load(), 1);
  EXPECT_EQ(orders.mailbox.counted.load(), 1);
  EXPECT_EQ(orders.own_dropped(), 0);
}

TEST(OwnEventsTests, LocalOnly_PublishedEventItAlsoHandles_OnceLocally_NoneBackFromTheBroker) {
  whizbang::RabbitMqOptions amqp = whizbang::test::test_rabbitmq_options();
  whizbang::RabbitMqTransport transport(amqp);
  // A second service binds the type, so the broker routes the event (and shows it was published).
  Service crm(transport, whizbang::test::unique_name("crm"));
  Service orders(
      transport, whizbang::test::unique_name("orders"),
      [](whizbang::HostOptions& options) { options.own_events.local_only = {"own_events::*"}; });
  ASSERT_TRUE(orders.host && crm.host);
  EXPECT_TRUE(orders.host->bindings().empty());
  ASSERT_TRUE(crm.host->start().ok());
  ASSERT_TRUE(orders.host->start().ok());

  ASSERT_TRUE(orders.register_customer("c-1").ok());
  ASSERT_TRUE(eventually([&] { return crm.mailbox.counted.load() == 1; }))
      << "the event never reached the broker";
  orders.host->stop();
  crm.host->stop();

  EXPECT_EQ(orders.mailbox.welcomes.load(), 1);  // once, locally
  EXPECT_EQ(orders.mailbox.counted.load(), 1);
  EXPECT_EQ(crm.mailbox.welcomes.load(), 0);  // once across services: orders' already
  // None back: orders has no queue for the event's exchange (nor any other), so the broker had
  // nowhere to put a copy for it, and its inbox received nothing.
  whizbang::test::RawAmqp raw(amqp);
  EXPECT_FALSE(raw.message_count(event_queue(orders)).has_value());
  EXPECT_TRUE(raw.message_count(event_queue(crm)).has_value());
  EXPECT_EQ(orders.own_dropped(), 0);
  EXPECT_EQ(orders.host->delivery_health().duplicates_dropped, 0u);
  EXPECT_EQ(orders.log.count("SameServiceInboxSkip"), 0);
}

}  // namespace
}  // namespace own_events
