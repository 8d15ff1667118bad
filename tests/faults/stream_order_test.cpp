// StreamOrderTests: a stream's messages are published, handled and projected in order, also when
// one of them fails and is retried: the later ones wait for it.
#include "fault_fixture.hpp"

namespace faults {
namespace {

using testing::ElementsAre;
using namespace std::chrono_literals;

class StreamOrderTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name) {
    return {GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_};
  }
  void settle_with_retries(std::initializer_list<Service*> services) {
    for (int round = 0; round < 4; ++round) {
      settle(services);
      clock_.advance(61s);
    }
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, StreamOrderTests, all_backends(), backend_name);

TEST_P(StreamOrderTests, OutboxPublishesAStreamInOrderAfterAFailure) {
  Service orders(config("orders"));
  Service warehouse(config("warehouse"));
  orders.faults.fail("ShipmentGate", 1);  // the first part's PreOutbox stage fails once
  ShipInParts command;
  command.order_id = "o-1";
  command.parts = 3;
  ASSERT_TRUE(orders.host->dispatcher().send(command).ok());
  const whizbang::HostCycle first = orders.step();
  EXPECT_EQ(first.outbox.failed, 1u);
  EXPECT_EQ(first.outbox.held_back, 2u) << "parts 2 and 3 wait for part 1";
  settle_with_retries({&orders, &warehouse});
  EXPECT_THAT(warehouse.faults.keys("ShipmentReceiver"), ElementsAre("o-1#1", "o-1#2", "o-1#3"));
}

TEST_P(StreamOrderTests, InboxHandlesAStreamInOrderAfterAFailure) {
  Service orders(config("orders"));
  Service shipping(config("shipping"));
  shipping.faults.fail("OrderFollower", 1);
  ASSERT_TRUE(orders.host->dispatcher().send(place("o-1", 3)).ok());
  settle_with_retries({&orders, &shipping});
  EXPECT_THAT(shipping.faults.keys("OrderFollower"),
              ElementsAre("o-1#1", "o-1#1", "o-1#2", "o-1#3"));
}

TEST_P(StreamOrderTests, PerspectiveProjectsAStreamInOrderAfterAFailure) {
  Service orders(config("orders"));
  Service shipping(config("shipping"));
  shipping.faults.fail("OrderTrail", 1);
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      orders.host->dispatcher().send(place("o-1", 3));
  ASSERT_TRUE(receipt.ok());
  settle_with_retries({&orders, &shipping});
  EXPECT_THAT(shipping.faults.keys("OrderTrail"), ElementsAre("o-1#1", "o-1#1", "o-1#2", "o-1#3"));
  // The events' stream is the PlaceOrder handling's; its model holds the steps in order.
  const whizbang::Uuid stream = receipt->message_id.uuid();
  auto model = shipping.store->load_perspective_model("faults::OrderTrailPerspective", stream);
  ASSERT_TRUE(model.ok() && model->has_value()) << model.status();
  EXPECT_EQ((*model)->model_json, R"({"steps":[1,2,3]})");
}

}  // namespace
}  // namespace faults
