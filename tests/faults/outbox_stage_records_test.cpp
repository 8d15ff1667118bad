// OutboxStageRecordTests: the PreOutbox and PostOutbox stages run outside any handling's
// transaction, so their records are kept in wh_receptor_invocations: a publish that fails, a
// transport that is not ready, or a crash between publishing and recording it fires neither of
// them a second time.
#include "fault_fixture.hpp"
#include "hooked_store.hpp"
#include "support/forwarding_transport.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

// The in-process transport with a readiness switch.
class SwitchableTransport final : public test_support::ForwardingTransport {
 public:
  SwitchableTransport() : ForwardingTransport(inner_) {}
  bool is_ready() const override { return ready_.load(); }

  whizbang::InProcessTransport& inner() { return inner_; }
  void set_ready(bool ready) { ready_ = ready; }

 private:
  whizbang::InProcessTransport inner_;
  std::atomic<bool> ready_{true};
};

class OutboxStageRecordTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name) {
    return {GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_};
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  SwitchableTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, OutboxStageRecordTests, all_backends(), backend_name);

TEST_P(OutboxStageRecordTests, PreOutboxReceptor_FiresOnceWhenThePublishFailsAndIsRetried) {
  Service orders(config("orders"));
  Service warehouse(config("warehouse"));
  transport_.inner().fail_publishes(absl::UnavailableError("broker down"));
  ASSERT_TRUE(orders.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  EXPECT_EQ(orders.step().outbox.failed, 1u);
  EXPECT_EQ(orders.faults.count("ShipmentGate"), 1);
  transport_.inner().fail_publishes(absl::OkStatus());
  clock_.advance(61s);
  settle({&orders, &warehouse});
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1);
  EXPECT_EQ(orders.faults.count("ShipmentGate"), 1) << "the retry did not fire it again";
  EXPECT_EQ(log_.count("[EventId 18 ReceptorAlreadyFiredSkip] receptor faults::ShipmentGate"), 1);
}

TEST_P(OutboxStageRecordTests, PreOutboxReceptor_FiresOnceWhenTheTransportWasNotReady) {
  Service orders(config("orders"));
  Service warehouse(config("warehouse"));
  transport_.set_ready(false);
  ASSERT_TRUE(orders.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  const whizbang::HostCycle waiting = orders.step();
  EXPECT_EQ(waiting.outbox.held_back, 1u);
  EXPECT_EQ(waiting.outbox.failed, 0u) << "not ready is no failure: no attempt is spent";
  transport_.set_ready(true);
  settle({&orders, &warehouse});
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1);
  EXPECT_EQ(orders.faults.count("ShipmentGate"), 1);
}

// A crash needs a store that outlives the process: SQLite only.
TEST(OutboxStageCrashTests, PostOutboxReceptor_FiresOnceAfterACrashBetweenPublishAndRecord) {
  TestDir dir;
  TestClock clock;
  LogCapture log;
  SwitchableTransport transport;
  Service warehouse({Backend::Sqlite, "warehouse", &transport, &clock, &log, &dir});
  ServiceConfig orders_config{Backend::Sqlite, "orders", &transport, &clock, &log, &dir};
  bool crash = true;
  orders_config.wrap_store = [&](std::unique_ptr<whizbang::WorkStore> store) {
    auto hooked = std::make_unique<HookedStore>(std::move(store));
    hooked->before_complete_work = [&]() -> absl::Status {
      if (crash) return absl::UnavailableError("the process died here");
      return absl::OkStatus();
    };
    return hooked;
  };
  auto orders = std::make_unique<Service>(orders_config);
  ASSERT_TRUE(orders->host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  EXPECT_FALSE(orders->host->run_once().ok()) << "published, PostOutbox fired, not recorded";
  EXPECT_EQ(orders->faults.count("ShipmentNotice"), 1);
  orders.reset();  // the process is gone, and what it held in memory with it
  crash = false;

  clock.advance(301s);  // its leases lapse
  Service restarted(orders_config);
  settle({&restarted, &warehouse});
  EXPECT_EQ(restarted.faults.count("ShipmentNotice"), 0) << "the record survived the crash";
  EXPECT_EQ(restarted.faults.count("ShipmentGate"), 0);
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1) << "the republish was deduplicated";
}

}  // namespace
}  // namespace faults
