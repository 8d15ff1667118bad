// SmallFaultTests: a completion the store could not record is recorded next cycle instead of the
// row being published again at once; a perspective event of a perspective this service does not
// have is dead-lettered, not retried forever.
#include "fault_fixture.hpp"
#include "hooked_store.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

class SmallFaultTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name) {
    return {GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_};
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, SmallFaultTests, all_backends(), backend_name);

TEST_P(SmallFaultTests, CompletionThatCouldNotBeRecorded_IsNotPublishedAgainAtOnce) {
  ServiceConfig orders_config = config("orders");
  int failures_left = 1;
  orders_config.wrap_store = [&](std::unique_ptr<whizbang::WorkStore> store) {
    auto hooked = std::make_unique<HookedStore>(std::move(store));
    hooked->before_complete_work = [&]() -> absl::Status {
      if (failures_left-- > 0) return absl::UnavailableError("database is locked");
      return absl::OkStatus();
    };
    return hooked;
  };
  Service orders(orders_config);
  Service warehouse(config("warehouse"));
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      orders.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1")));
  ASSERT_TRUE(receipt.ok());
  EXPECT_FALSE(orders.host->run_once().ok());
  EXPECT_EQ(transport_.publish_count(receipt->message_id), 1u);
  ASSERT_TRUE(orders.host->run_once().ok());
  EXPECT_EQ(transport_.publish_count(receipt->message_id), 1u) << "recorded, not republished";
  auto row = whizbang::reader_of(*orders.store)->find_outbox_row(receipt->message_id);
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(row->has_value());
}

TEST_P(SmallFaultTests, PerspectiveEventOfAnUnknownPerspective_IsDeadLettered) {
  Service shipping(config("shipping"));
  // Left by an older version of the service that had a perspective this one no longer has.
  ASSERT_TRUE(shipping.store->add_perspective_association("faults::OrderPlaced", "Ghost").ok());
  OrderPlaced placed;
  placed.order_id = "o-1";
  deliver(transport_, placed, "orders");
  for (int round = 0; round < 3; ++round) {
    settle({&shipping});
    clock_.advance(1h);
  }
  auto letters = shipping.store->dead_letters(10);
  ASSERT_TRUE(letters.ok());
  ASSERT_EQ(letters->size(), 1u);
  EXPECT_EQ((*letters)[0].source, whizbang::DeadLetterSource::PerspectiveEvent);
  EXPECT_EQ((*letters)[0].target, "Ghost");
  EXPECT_EQ((*letters)[0].attempts, 1) << "not retried";
  EXPECT_EQ(shipping.faults.count("OrderTrail"), 1) << "the known perspective applied it";
}

}  // namespace
}  // namespace faults
