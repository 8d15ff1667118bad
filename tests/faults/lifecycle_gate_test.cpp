// LifecycleGateTests: PostAllPerspectives and PostLifecycle fire once per event "across retries":
// stages that failed run again until they succeed (receptors that already fired are not fired
// again), and a process that died between opening the gate and running them leaves them to a
// later cycle.
#include <whizbang/workers/perspective_worker.hpp>

#include "fault_fixture.hpp"
#include "hooked_store.hpp"
#include "takeover.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

class LifecycleGateTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name) {
    return {GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_};
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, LifecycleGateTests, all_backends(), backend_name);

TEST_P(LifecycleGateTests, GateStagesThatFailed_RunAgainUntilTheySucceed) {
  Service orders(config("orders"));
  Service shipping(config("shipping"));
  shipping.faults.fail("AllProjected", 1);
  ASSERT_TRUE(orders.host->dispatcher().send(place("o-1")).ok());
  settle({&orders, &shipping});
  EXPECT_EQ(shipping.faults.count("AllProjected"), 1);
  EXPECT_EQ(shipping.faults.count("ProjectionCounter"), 1);
  EXPECT_EQ(shipping.faults.count("LifecycleDone"), 0) << "PostLifecycle waits for the gate";
  clock_.advance(61s);
  settle({&orders, &shipping});
  EXPECT_EQ(shipping.faults.count("AllProjected"), 2) << "retried until it succeeded";
  EXPECT_EQ(shipping.faults.count("ProjectionCounter"), 1) << "fired once, across the retry";
  EXPECT_EQ(shipping.faults.count("LifecycleDone"), 1);
  clock_.advance(1h);
  settle({&orders, &shipping});
  EXPECT_EQ(shipping.faults.count("AllProjected"), 2) << "done: never again";
}

// A crash needs a store that outlives the host: SQLite.
TEST(LifecycleGateCrashTests, HostDiedBetweenTheGateAndItsStages_ALaterHostRunsThem) {
  TestDir dir;
  TestClock clock;
  LogCapture log;
  whizbang::InProcessTransport transport;
  const ServiceConfig shipping_config{Backend::Sqlite, "shipping", &transport, &clock, &log, &dir};
  Service orders({Backend::Sqlite, "orders", &transport, &clock, &log, &dir});
  auto shipping = std::make_unique<Service>(shipping_config);
  ASSERT_TRUE(orders.host->dispatcher().send(place("o-1")).ok());
  orders.step();  // published to shipping's inbox
  // The inbox's claim appends the event to the event store, which gives it its perspective event.
  whizbang::WorkBatchRequest inbox_claim;
  inbox_claim.claim_outbox = false;
  ASSERT_TRUE(shipping->store->process_work_batch(inbox_claim).ok());
  // What the perspective worker does, up to the gate and no further: the process dies after the
  // transaction that completed the event's last perspective event committed.
  whizbang::PerspectiveRunner& runner = *shipping->host->perspectives();
  auto work = shipping->store->claim_perspective_work(10);
  ASSERT_TRUE(work.ok()) << work.status();
  ASSERT_EQ(work->size(), 1u);
  auto envelope = whizbang::envelope_from_stored_event((*work)[0], runner.registry());
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const whizbang::PerspectiveInfo* perspective =
      runner.registry().find_perspective((*work)[0].perspective_name);
  ASSERT_NE(perspective, nullptr);
  bool gate_opened = false;
  ASSERT_TRUE(
      runner.apply(*envelope, *perspective, {}, &(*work)[0].event_work_id, &gate_opened).ok());
  ASSERT_TRUE(gate_opened);
  EXPECT_EQ(shipping->faults.count("AllProjected"), 0);
  shipping.reset();

  clock.advance(301s);  // the dead host's lease on the lifecycle completion lapses
  Service restarted(shipping_config);
  settle({&restarted});
  EXPECT_EQ(restarted.faults.count("AllProjected"), 1);
  EXPECT_EQ(restarted.faults.count("ProjectionCounter"), 1);
  EXPECT_EQ(restarted.faults.count("LifecycleDone"), 1);
}

// Two instances of "shipping" on one store. The first opened the gate and fired the first of
// its stage's receptors; its lease on the lifecycle completion lapses before the firing is
// recorded, and the second instance claims lifecycle work at the first moment the store lets it.
// Each receptor fires once between them: the stages fire, and their records commit, while the
// firing instance holds the completion.
class LifecycleGateTakeoverTests : public LifecycleGateTests {};

INSTANTIATE_TEST_SUITE_P(Stores, LifecycleGateTakeoverTests,
                         ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

TEST_P(LifecycleGateTakeoverTests, GateStage_TakenOverBetweenAFiringAndItsRecord_FiresOnce) {
  Service orders(config("orders"));
  HookedStore* hooks = nullptr;
  ServiceConfig first_config = config("shipping");
  first_config.wrap_store = [&hooks](std::unique_ptr<whizbang::WorkStore> store) {
    auto hooked = std::make_unique<HookedStore>(std::move(store));
    hooks = hooked.get();
    return hooked;
  };
  Service first(first_config);
  Service second(config("shipping"));
  Takeover takeover(clock_);
  takeover.after_firing_of("faults::ProjectionCounter", *hooks, second);
  ASSERT_TRUE(orders.host->dispatcher().send(place("o-1")).ok());
  orders.step();
  first.step();
  ASSERT_TRUE(takeover.struck()) << "the gate's stage never fired in the first instance";
  settle({&orders, &first, &second});
  for (const char* receptor : {"ProjectionCounter", "AllProjected", "LifecycleDone"}) {
    EXPECT_EQ(first.faults.count(receptor) + second.faults.count(receptor), 1) << receptor;
  }
}

}  // namespace
}  // namespace faults
