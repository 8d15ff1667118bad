// DetachedWorkTests: a Detached stage scheduled on the executor is kept in the store until it has
// run: it runs once when the executor runs it, is retried when it fails, and is run by another
// cycle when its process died before the executor got to it.
#include <whizbang/lifecycle/executor.hpp>

#include "fault_fixture.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

// An executor whose process "dies" before it runs anything: it keeps what it is given.
class ParkingExecutor final : public whizbang::Executor {
 public:
  void submit(std::function<void()> work) override { parked_.push_back(std::move(work)); }
  void drain() override {}
  std::size_t parked() const { return parked_.size(); }

 private:
  std::vector<std::function<void()>> parked_;
};

class DetachedWorkTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name, whizbang::Executor* executor) {
    ServiceConfig config{GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_};
    config.configure = [executor](whizbang::HostOptions& options) { options.executor = executor; };
    return config;
  }
  static OrderPlaced placed(std::string id) {
    OrderPlaced event;
    event.order_id = std::move(id);
    return event;
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, DetachedWorkTests, all_backends(), backend_name);

// More kept than one batch (their process died before running them): the worker's next cycle
// starts at once, not after its poll.
TEST_P(DetachedWorkTests, FullBatch_RunsTheNextCycleWithoutWaitingForItsPoll) {
  ParkingExecutor parking;
  Service shipping(config("shipping", &parking));
  for (int i = 0; i < 5; ++i) deliver(transport_, placed("o-" + std::to_string(i)), "orders");
  settle({&shipping});
  ASSERT_EQ(parking.parked(), 5u);
  clock_.advance(301s);  // the leases on the parked work lapse, as when their process died
  whizbang::DetachedWorkerOptions options;
  options.max_batch = 2;  // 5 kept: 2 full batches, then 1
  options.poll_interval = std::chrono::hours(1);
  whizbang::DetachedWorker worker(*shipping.store, shipping.host->invoker(), options);
  worker.start();
  EXPECT_TRUE(worker.loop().wait_for_cycles(3, 30s))
      << "the worker waited for its poll with work left";
  worker.stop();
  EXPECT_EQ(shipping.faults.count("DetachedAuditor"), 5);
}

TEST_P(DetachedWorkTests, DetachedStage_RunsOnceAndIsNotKeptAfterwards) {
  whizbang::ThreadPoolExecutor executor(2);
  Service shipping(config("shipping", &executor));
  deliver(transport_, placed("o-1"), "orders");
  settle({&shipping});
  executor.drain();
  settle({&shipping});
  EXPECT_EQ(shipping.faults.count("DetachedAuditor"), 1);
  auto kept = shipping.store->claim_detached_work(10);
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(kept->empty());
}

TEST_P(DetachedWorkTests, FailedDetachedStage_IsRetriedUntilItSucceeds) {
  whizbang::ThreadPoolExecutor executor(1);
  Service shipping(config("shipping", &executor));
  shipping.faults.fail("DetachedAuditor", 1);
  deliver(transport_, placed("o-1"), "orders");
  settle({&shipping});
  executor.drain();
  EXPECT_EQ(shipping.faults.count("DetachedAuditor"), 1);
  clock_.advance(61s);
  EXPECT_EQ(shipping.step().detached.ran, 1u);
  EXPECT_EQ(shipping.faults.count("DetachedAuditor"), 2);
  clock_.advance(1h);
  EXPECT_EQ(shipping.step().detached.ran, 0u) << "done: never again";
}

TEST_P(DetachedWorkTests, PermanentlyFailingDetachedStage_IsDeadLettered) {
  whizbang::ThreadPoolExecutor executor(1);
  ServiceConfig shipping_config = config("shipping", &executor);
  shipping_config.max_attempts = 2;
  Service shipping(shipping_config);
  shipping.faults.fail("DetachedAuditor");
  deliver(transport_, placed("o-1"), "orders");
  settle({&shipping});
  executor.drain();
  clock_.advance(10min);
  shipping.step();
  clock_.advance(10min);
  shipping.step();
  EXPECT_EQ(shipping.faults.count("DetachedAuditor"), 2);
  auto letters = shipping.store->dead_letters(10);
  ASSERT_TRUE(letters.ok());
  ASSERT_EQ(letters->size(), 1u);
  EXPECT_EQ((*letters)[0].source, whizbang::DeadLetterSource::DetachedWork);
  EXPECT_EQ((*letters)[0].target, "faults::DetachedAuditor");
  EXPECT_EQ((*letters)[0].message_type, "faults::OrderPlaced");
}

// A process that died needs a store that outlives it: SQLite.
TEST(DetachedWorkCrashTests, ScheduledStageOfAProcessThatDied_RunsInTheNextOne) {
  TestDir dir;
  TestClock clock;
  LogCapture log;
  whizbang::InProcessTransport transport;
  ParkingExecutor parking;
  ServiceConfig first_config{Backend::Sqlite, "shipping", &transport, &clock, &log, &dir};
  first_config.configure = [&](whizbang::HostOptions& options) { options.executor = &parking; };
  auto first = std::make_unique<Service>(first_config);
  OrderPlaced placed;
  placed.order_id = "o-1";
  deliver(transport, placed, "orders");
  EXPECT_EQ(first->step().inbox.handled, 1u) << "the handling committed";
  EXPECT_EQ(parking.parked(), 1u) << "its detached stage was scheduled, never run";
  first.reset();  // the process dies with its executor's queue

  clock.advance(301s);  // its lease on the detached work lapses
  Service restarted({Backend::Sqlite, "shipping", &transport, &clock, &log, &dir});
  EXPECT_EQ(restarted.step().detached.ran, 1u);
  EXPECT_EQ(restarted.faults.count("DetachedAuditor"), 1);
  EXPECT_EQ(restarted.step().detached.ran, 0u);
}

}  // namespace
}  // namespace faults
