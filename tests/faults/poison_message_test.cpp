// PoisonMessageTests: a message that always fails is retried max_attempts times, then
// dead-lettered (kept, with its attempts and last error, counted and warned about), never retried
// forever; a permanent failure skips the retries; a requeued dead letter is handled again.
#include "fault_fixture.hpp"

namespace faults {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using namespace std::chrono_literals;

class PoisonMessageTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name, int max_attempts = 3) {
    return {GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_, max_attempts};
  }
  // Steps `service` `cycles` times, moving the clock past every backoff in between.
  void retry(Service& service, int cycles) {
    for (int cycle = 0; cycle < cycles; ++cycle) {
      service.step();
      clock_.advance(10min);
    }
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, PoisonMessageTests, all_backends(), backend_name);

TEST_P(PoisonMessageTests, AlwaysFailingCommand_IsDeadLetteredAfterMaxAttempts) {
  Service warehouse(config("warehouse"));
  warehouse.faults.fail("ShipOrderHandler");
  const whizbang::MessageId id = deliver(transport_, ship("o-1"));
  retry(warehouse, 6);
  EXPECT_EQ(warehouse.faults.count("ShipOrderHandler"), 3) << "max_attempts, then never again";
  auto row = whizbang::reader_of(*warehouse.store)->find_inbox_row(id);
  ASSERT_TRUE(row.ok() && row->has_value()) << "a dead letter is kept";
  EXPECT_TRUE((*row)->state.dead_lettered_at.has_value());
  EXPECT_EQ((*row)->state.attempts, 3);
  EXPECT_EQ((*row)->state.failure_reason, whizbang::FailureReason::MaxAttemptsExceeded);
  EXPECT_THAT((*row)->state.error, HasSubstr("warehouse unreachable"));
  const whizbang::MetricTag type{whizbang::metric_names::kMessageTypeTag, "faults::ShipOrder"};
  EXPECT_EQ(warehouse.metrics->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                                       whizbang::metric_names::kWorkFailed, {type}),
            3);
  EXPECT_EQ(warehouse.metrics->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                                       whizbang::metric_names::kWorkDeadLettered, {type}),
            1);
  EXPECT_EQ(log_.count("[warning] [EventId 141 MessageDeadLettered] wh_inbox row " +
                       id.to_string() + " (faults::ShipOrder) dead-lettered after 3 attempts"),
            1);
}

TEST_P(PoisonMessageTests, PermanentFailure_IsDeadLetteredAtOnce) {
  Service warehouse(config("warehouse"));
  warehouse.faults.fail("OrderRejecter");
  RejectOrder command;
  command.order_id = "o-1";
  deliver(transport_, command);
  retry(warehouse, 4);
  EXPECT_EQ(warehouse.faults.count("OrderRejecter"), 1);
  auto letters = warehouse.store->dead_letters(10);
  ASSERT_TRUE(letters.ok());
  ASSERT_EQ(letters->size(), 1u);
  EXPECT_EQ((*letters)[0].attempts, 1);
  EXPECT_THAT((*letters)[0].error, HasSubstr("failed permanently: order o-1 is invalid"));
}

TEST_P(PoisonMessageTests, RequeuedDeadLetter_IsHandledOnceItsReceptorRecovers) {
  Service warehouse(config("warehouse"));
  warehouse.faults.fail("ShipOrderHandler", 3);  // fails until dead-lettered, then recovers
  const whizbang::MessageId id = deliver(transport_, ship("o-1"));
  retry(warehouse, 4);
  ASSERT_EQ(warehouse.store->dead_letters(10)->size(), 1u);
  const whizbang::MessageId ids[] = {id};
  ASSERT_EQ(*warehouse.store->requeue_dead_letters(ids), 1u);
  EXPECT_EQ(warehouse.step().inbox.handled, 1u);
  EXPECT_EQ(warehouse.faults.count("ShipOrderHandler"), 4);
  auto row = whizbang::reader_of(*warehouse.store)->find_inbox_row(id);
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(row->has_value());
}

TEST_P(PoisonMessageTests, DeadLetteredEarlierEvent_LetsTheRestOfItsStreamThrough) {
  Service orders(config("orders"));
  Service shipping(config("shipping"));
  shipping.faults.fail("OrderFollower", 3);  // step 1 fails every attempt
  ASSERT_TRUE(orders.host->dispatcher().send(place("o-1", 2)).ok());
  for (int round = 0; round < 6; ++round) {
    settle({&orders, &shipping});
    clock_.advance(10min);
  }
  EXPECT_THAT(shipping.faults.keys("OrderFollower"),
              ElementsAre("o-1#1", "o-1#1", "o-1#1", "o-1#2"))
      << "step 2 waited for step 1 until step 1 was dead-lettered";
  EXPECT_GE(log_.count("proceed without it"), 1);
}

}  // namespace
}  // namespace faults
