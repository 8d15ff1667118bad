// HostWithoutTransportTests: a host with no transport still stores its events (and projects
// them); rows meant for other services wait in its outbox instead of failing.
#include "fault_fixture.hpp"

namespace faults {
namespace {

class HostWithoutTransportTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config() { return {GetParam(), "solo", nullptr, &clock_, &log_, &dir_}; }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
};

INSTANTIATE_TEST_SUITE_P(Stores, HostWithoutTransportTests, all_backends(), backend_name);

TEST_P(HostWithoutTransportTests, LocalPublish_IsStoredAndProjected) {
  Service solo(config());
  OrderPlaced placed;
  placed.order_id = "o-1";
  placed.step = 1;
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      solo.host->dispatcher().publish(whizbang::Route::Local(placed));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  settle({&solo});
  auto events = solo.store->read_stream(receipt->message_id.uuid());
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u) << "the event reached the event store";
  EXPECT_EQ(solo.faults.count("OrderTrail"), 1) << "and its perspective";
  EXPECT_EQ(solo.faults.count("AllProjected"), 1);
}

TEST_P(HostWithoutTransportTests, RowsForOtherServices_WaitInTheOutbox) {
  Service solo(config());
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      solo.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1")));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  settle({&solo});
  auto row = whizbang::reader_of(*solo.store)->find_outbox_row(receipt->message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state.attempts, 0) << "no attempt spent on a transport it does not have";
  EXPECT_FALSE((*row)->state.dead_lettered_at.has_value());
  EXPECT_EQ(solo.faults.count("ShipmentGate"), 0);
}

}  // namespace
}  // namespace faults
