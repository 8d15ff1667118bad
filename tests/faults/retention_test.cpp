// RetentionTests: nothing grows without bound. The host purges duplicate-guarding bookkeeping
// past its retention (and a duplicate that old is then handled again, as documented); the
// in-process transport keeps a bounded history.
#include "fault_fixture.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

TEST(RetentionTests, Host_PurgesInboxDeduplicationPastItsRetention) {
  TestDir dir;
  TestClock clock;
  LogCapture log;
  whizbang::InProcessTransport transport;
  ServiceConfig config{Backend::Sqlite, "warehouse", &transport, &clock, &log, &dir};
  config.configure = [](whizbang::HostOptions& options) {
    options.purge_interval = std::chrono::hours(1);  // the first purge runs at start()
  };
  Service warehouse(config);
  // A message handled once, then the same message again eight days later.
  whizbang::ServiceInstance origin;
  origin.service_name = "orders";
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(ship("o-1")), origin);
  const whizbang::TransportMessage sent{envelope.message_id, "faults::ShipOrder",
                                        whizbang::serialize_envelope(envelope), std::nullopt,
                                        false};
  const whizbang::TransportDestination inbox{"inbox.faults", "faults.shiporder", {}};
  ASSERT_TRUE(transport.publish(inbox, {&sent, 1}).ok());
  settle({&warehouse});
  ASSERT_TRUE(transport.publish(inbox, {&sent, 1}).ok());
  settle({&warehouse});
  EXPECT_EQ(warehouse.faults.count("ShipOrderHandler"), 1) << "a redelivery is a duplicate";

  clock.advance(8 * 24h);
  ASSERT_TRUE(warehouse.host->start().ok());
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (log.count("[EventId 143 RetentionPurged]") == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  warehouse.host->stop();
  EXPECT_EQ(log.count("[EventId 143 RetentionPurged] purged 1 inbox dedup ids"), 1);
  ASSERT_TRUE(transport.publish(inbox, {&sent, 1}).ok());
  settle({&warehouse});
  EXPECT_EQ(warehouse.faults.count("ShipOrderHandler"), 2) << "past retention it is new again";
}

TEST(RetentionTests, InProcessTransport_KeepsABoundedHistory) {
  whizbang::InProcessTransport transport(/*history=*/3);
  auto subscription = transport.subscribe(
      "any", {{"orders", ""}},
      [](const whizbang::TransportDestination&, std::span<const whizbang::TransportMessage>) {
        return absl::OkStatus();
      });
  ASSERT_TRUE(subscription.ok());
  std::vector<whizbang::MessageId> ids;
  for (int i = 0; i < 5; ++i) {
    const whizbang::TransportMessage message{whizbang::MessageId::mint(), "faults::OrderShipped",
                                             "{}", std::nullopt, true};
    ids.push_back(message.message_id);
    ASSERT_TRUE(transport.publish({"orders", "faults.ordershipped", {}}, {&message, 1}).ok());
  }
  EXPECT_EQ(transport.published_count(), 5u);
  ASSERT_EQ(transport.published().size(), 3u);
  EXPECT_EQ(transport.published().front().message.message_id, ids[2]);
  EXPECT_EQ(transport.publish_count(ids[0]), 0u) << "no longer held";
  EXPECT_EQ(transport.publish_count(ids[4]), 1u);
}

}  // namespace
}  // namespace faults
