// A publish scheduled for later (docs/guide/03-routing.md, "Publishing for later"): nothing
// runs locally and nothing is recorded; the row waits in the outbox and is delivered once due.

#include <atomic>
#include <chrono>

#include "host_fixture.hpp"

namespace lifecycle_test {
namespace {

using namespace std::chrono_literals;

// The orders store runs on a clock the test moves.
class ScheduledPublishTests : public ::testing::Test {
 protected:
  std::unique_ptr<whizbang::WorkStore> store_on_test_clock() {
    whizbang::StoreOptions options;
    options.instance.service_name = "orders";
    options.now = [this] { return now_.load(); };
    return std::make_unique<whizbang::MemoryWorkStore>(options);
  }

  FireLog log_;
  whizbang::InProcessTransport transport_;
  std::atomic<whizbang::TimePoint> now_{whizbang::Clock::now()};
};

TEST_F(ScheduledPublishTests, PublishAt_RunsNothingLocallyRecordsNothing_AndDeliversOnceDue) {
  Service orders(log_, transport_, "orders", {}, store_on_test_clock());
  Service notifications(log_, transport_, "notifications");

  auto receipt = orders.host->dispatcher().publish_at(placed("s-1"), now_.load() + 10min);
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(receipt->status, whizbang::DeliveryStatus::Queued);
  EXPECT_EQ(log_.count("SharedProjection"), 0);  // nothing ran locally

  auto envelope = stored_outbox_envelope(orders, receipt->message_id);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  EXPECT_TRUE(envelope->receptor_invocations.empty());  // nothing recorded

  settle(orders, notifications);
  EXPECT_EQ(log_.count("SharedProjection"), 0);  // not due yet

  now_ = now_.load() + 10min;
  settle(orders, notifications);
  EXPECT_EQ(log_.count("SharedProjection", "notifications"), 1);
  EXPECT_EQ(log_.count("SharedProjection", "orders"), 0);  // same-service inbox skip (EventId 10)
}

TEST_F(ScheduledPublishTests, PublishAt_OnlyLocalRoute_IsRejectedAndWritesNothing) {
  Service orders(log_, transport_, "orders");
  auto receipt = orders.host->dispatcher().publish_at(
      whizbang::Route::LocalNoPersist(placed("s-2")), whizbang::Clock::now() + 1min);
  ASSERT_FALSE(receipt.ok());
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(log_.count("SharedProjection"), 0);
  auto cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok());
  EXPECT_EQ(cycle->outbox.published, 0u);
}

}  // namespace
}  // namespace lifecycle_test
