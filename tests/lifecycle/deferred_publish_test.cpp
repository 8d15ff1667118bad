// The deferred outbox channel in a host (docs/guide/06-stores-and-workers.md):
// a publish made outside any transaction queues its rows; the drain worker writes them at the
// start of its next cycle and is woken by the queueing. Inside an open transaction a publish
// joins it, and WriteThrough commits before publish() returns.
#include <chrono>
#include <thread>

#include <whizbang/ids/derived_identity.hpp>
#include <whizbang/store/store_reader.hpp>

#include "host_fixture.hpp"

namespace lifecycle_test {
namespace {

using namespace std::chrono_literals;

class DeferredPublishTests : public ::testing::Test {
 protected:
  bool stored(Service& service, const whizbang::MessageId& id) {
    auto row = whizbang::reader_of(*service.store)->find_outbox_row(id);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() && row->has_value();
  }

  FireLog log_;
  whizbang::InProcessTransport transport_;
};

TEST_F(DeferredPublishTests, PublishOutsideATransaction_QueuesUntilTheNextDrainCycle) {
  Service orders(log_, transport_, "orders");
  auto receipt = orders.host->dispatcher().publish(placed("d-1"));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(log_.count("SharedProjection", "orders"), 1);  // local receptors ran already
  EXPECT_FALSE(stored(orders, receipt->message_id));

  auto cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->outbox.deferred_written, 1u);
  EXPECT_EQ(cycle->outbox.published, 1u);  // written, then drained in the same cycle

  auto again = orders.host->run_once();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outbox.deferred_written, 0u);  // drained once
}

TEST_F(DeferredPublishTests, PublishInsideAnOpenTransaction_JoinsIt) {
  Service orders(log_, transport_, "orders");
  whizbang::Transaction transaction(*orders.store);
  ASSERT_TRUE(transaction.status().ok());
  auto receipt = orders.host->dispatcher().publish(placed("d-2"));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  ASSERT_TRUE(transaction.commit().ok());
  EXPECT_TRUE(stored(orders, receipt->message_id));
  auto cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok());
  EXPECT_EQ(cycle->outbox.deferred_written, 0u);
}

TEST_F(DeferredPublishTests, WriteThrough_CommitsBeforePublishReturns) {
  Service orders(log_, transport_, "orders", {}, nullptr, [](whizbang::HostOptions& options) {
    options.publish_outside_transaction = whizbang::PublishOutsideTransaction::WriteThrough;
  });
  auto receipt = orders.host->dispatcher().publish(placed("d-3"));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_TRUE(stored(orders, receipt->message_id));
}

TEST_F(DeferredPublishTests, SendRunsInItsOwnTransaction_ItsCascadeIsNotDeferred) {
  Service orders(log_, transport_, "orders");
  PlaceOrder place;
  place.order_id = "d-4";
  auto receipt = orders.host->dispatcher().send(place);
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  // The cascaded OrderPlaced (its id derived from the handling) is stored before any cycle.
  auto placed_id = whizbang::EmissionIdentity::derive(receipt->message_id.uuid(), "orders",
                                                      "lifecycle_test::PlaceOrderReceptor",
                                                      "lifecycle_test::OrderPlaced", 0);
  ASSERT_TRUE(placed_id.ok()) << placed_id.status();
  EXPECT_TRUE(stored(orders, *placed_id));
  auto cycle = orders.host->run_once();
  ASSERT_TRUE(cycle.ok());
  EXPECT_EQ(cycle->outbox.deferred_written, 0u);
}

TEST_F(DeferredPublishTests, Stop_WritesDeferredRowsNoCycleTookUp) {
  Service orders(log_, transport_, "orders");
  auto receipt = orders.host->dispatcher().publish(placed("d-5"));
  ASSERT_TRUE(receipt.ok());
  EXPECT_FALSE(stored(orders, receipt->message_id));
  orders.host->stop();
  EXPECT_TRUE(stored(orders, receipt->message_id));
}

TEST_F(DeferredPublishTests, RunningHost_IsWokenByTheQueueing_NotByItsPoll) {
  Service orders(log_, transport_, "orders", {}, nullptr,
                 [](whizbang::HostOptions& options) { options.poll_interval = 1h; });
  Service notifications(log_, transport_, "notifications");  // stepped by the test
  ASSERT_TRUE(orders.host->start().ok());
  // The first cycles are done; the next poll is in 1 h.
  ASSERT_TRUE(orders.host->wait_until_ready(10s));
  ASSERT_TRUE(orders.host->dispatcher().publish(placed("d-6")).ok());
  // Only a woken drain worker gets the event to the other service within the deadline.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (log_.count("SharedProjection", "notifications") == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(notifications.host->run_once().ok());
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(log_.count("SharedProjection", "notifications"), 1);
  orders.host->stop();
}

}  // namespace
}  // namespace lifecycle_test
