// OutboxStageTakeoverTests: two instances of one service on one store. The first instance's
// outbox stage has fired, and its lease lapses before the firing is recorded (a stalled thread,
// a slow disk): the second instance takes the row over at the first moment the store lets it.
// The stage fires once between them: a stage fires, and its record commits, while the firing
// instance holds the row (docs/guide/11-failures.md, "Several instances, leases and crashes").
#include "fault_fixture.hpp"
#include "hooked_store.hpp"
#include "takeover.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

class OutboxStageTakeoverTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig orders(HookedStore** hooks = nullptr) {
    ServiceConfig config{GetParam(), "orders", &transport_, &clock_, &log_, &dir_};
    if (hooks != nullptr) {
      config.wrap_store = [hooks](std::unique_ptr<whizbang::WorkStore> store) {
        auto hooked = std::make_unique<HookedStore>(std::move(store));
        *hooks = hooked.get();
        return hooked;
      };
    }
    return config;
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
  Takeover takeover_{clock_};
};

INSTANTIATE_TEST_SUITE_P(Stores, OutboxStageTakeoverTests,
                         ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

TEST_P(OutboxStageTakeoverTests, PostOutboxReceptor_RowTakenOverBetweenItsFiringAndItsRecord) {
  HookedStore* hooks = nullptr;
  Service first(orders(&hooks));
  Service second(orders());
  Service warehouse({GetParam(), "warehouse", &transport_, &clock_, &log_, &dir_});
  takeover_.after_firing_of("faults::ShipmentNotice", *hooks, second);
  ASSERT_TRUE(first.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  first.step();
  ASSERT_TRUE(takeover_.struck()) << "the receptor never fired in the first instance";
  settle({&first, &second, &warehouse});
  EXPECT_EQ(first.faults.count("ShipmentNotice") + second.faults.count("ShipmentNotice"), 1)
      << "fired by both instances";
  EXPECT_EQ(first.faults.count("ShipmentGate") + second.faults.count("ShipmentGate"), 1);
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1);
}

TEST_P(OutboxStageTakeoverTests, PreOutboxReceptor_RowTakenOverBetweenItsFiringAndItsRecord) {
  HookedStore* hooks = nullptr;
  Service first(orders(&hooks));
  Service second(orders());
  Service warehouse({GetParam(), "warehouse", &transport_, &clock_, &log_, &dir_});
  takeover_.after_firing_of("faults::ShipmentGate", *hooks, second);
  ASSERT_TRUE(first.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  first.step();
  ASSERT_TRUE(takeover_.struck()) << "the receptor never fired in the first instance";
  settle({&first, &second, &warehouse});
  EXPECT_EQ(first.faults.count("ShipmentGate") + second.faults.count("ShipmentGate"), 1)
      << "fired by both instances";
  EXPECT_EQ(first.faults.count("ShipmentNotice") + second.faults.count("ShipmentNotice"), 1);
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1);
}

// The second instance takes the row over after the first claimed it and before its PreOutbox
// stage's transaction began: the first fires nothing, publishes nothing and records nothing.
TEST_P(OutboxStageTakeoverTests, RowTakenOverBeforeItsPreOutboxStage_IsLeftToTheNewOwner) {
  HookedStore* hooks = nullptr;
  Service first(orders(&hooks));
  Service second(orders());
  Service warehouse({GetParam(), "warehouse", &transport_, &clock_, &log_, &dir_});
  ASSERT_TRUE(first.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  hooks->before_begin = [&] {
    if (!takeover_.struck()) takeover_.strike(second);
  };
  const whizbang::HostCycle cycle = first.step();
  ASSERT_TRUE(takeover_.struck());
  EXPECT_EQ(cycle.outbox.lease_lost, 1u);
  EXPECT_EQ(cycle.outbox.published, 0u);
  settle({&first, &second, &warehouse});
  EXPECT_EQ(first.faults.count("ShipmentGate"), 0);
  EXPECT_EQ(first.faults.count("ShipmentNotice"), 0);
  EXPECT_EQ(second.faults.count("ShipmentGate"), 1);
  EXPECT_EQ(second.faults.count("ShipmentNotice"), 1);
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1);
  EXPECT_GE(log_.count("[EventId 142 LeaseLost]"), 1);
}

// Each outbox stage with receptors checks the row's lease once, in its own transaction; a
// message whose outbox stages have no receptors costs neither.
TEST_P(OutboxStageTakeoverTests, OnlyStagesWithReceptors_CheckTheRowsLease) {
  HookedStore* hooks = nullptr;
  Service first(orders(&hooks));
  int renewals = 0;  // of outbox rows (the inbox handles this service's own events too)
  hooks->before_renew_leases = [&](std::span<const whizbang::WorkLease> leases) {
    for (const whizbang::WorkLease& lease : leases) {
      renewals += lease.source == whizbang::WorkSource::Outbox;
    }
    return absl::OkStatus();
  };
  OrderPlaced placed;
  placed.order_id = "o-1";
  ASSERT_TRUE(first.host->dispatcher().publish(whizbang::Route::Outbox(placed)).ok());
  EXPECT_EQ(first.step().outbox.published, 1u);
  EXPECT_EQ(renewals, 0) << "OrderPlaced has no outbox stage receptors";
  ASSERT_TRUE(first.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  EXPECT_EQ(first.step().outbox.published, 1u);
  EXPECT_EQ(renewals, 3) << "PreOutboxInline, PostOutboxDetached, PostOutboxInline";
  EXPECT_EQ(first.faults.count("ShipmentGate"), 1);
  EXPECT_EQ(first.faults.count("ShipmentArchiver"), 1);
  EXPECT_EQ(first.faults.count("ShipmentNotice"), 1);
}

// The store fails before a PostOutbox stage could fire (its lease check): the published row is
// not completed but offered again, and the stage fires with the next publish, once.
TEST_P(OutboxStageTakeoverTests, StoreFailedBeforeAPostOutboxStage_RowOfferedAgain_StageFiresOnce) {
  HookedStore* hooks = nullptr;
  Service first(orders(&hooks));
  Service warehouse({GetParam(), "warehouse", &transport_, &clock_, &log_, &dir_});
  int outbox_renewals = 0;
  hooks->before_renew_leases = [&](std::span<const whizbang::WorkLease> leases) {
    if (leases.empty() || leases[0].source != whizbang::WorkSource::Outbox) return absl::OkStatus();
    // The second is PostOutboxDetached's (the first is PreOutboxInline's).
    return ++outbox_renewals == 2 ? absl::UnavailableError("store unreachable") : absl::OkStatus();
  };
  ASSERT_TRUE(first.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  const whizbang::HostCycle cycle = first.step();
  EXPECT_EQ(cycle.outbox.published, 0u);
  EXPECT_EQ(cycle.outbox.held_back, 1u);
  EXPECT_EQ(first.faults.count("ShipmentArchiver"), 0);
  EXPECT_EQ(first.faults.count("ShipmentNotice"), 0);
  settle({&first, &warehouse});
  EXPECT_EQ(first.faults.count("ShipmentGate"), 1);
  EXPECT_EQ(first.faults.count("ShipmentArchiver"), 1);
  EXPECT_EQ(first.faults.count("ShipmentNotice"), 1);
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1) << "the second publish was dropped";
}

}  // namespace
}  // namespace faults
