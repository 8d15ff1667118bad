// HostOptions::circuit_breakers reaches the host's inbox worker, and
// ServiceHost::circuit_breakers() lists the breakers with their state (docs/guide/11-failures.md,
// "Circuit breakers").
#include <whizbang/workers/circuit_breaker.hpp>

#include "fault_fixture.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

class CircuitBreakerHostTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name) {
    return {GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_, 10, nullptr};
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics_ =
      std::make_shared<whizbang::InMemoryMetrics>();
};

INSTANTIATE_TEST_SUITE_P(Stores, CircuitBreakerHostTests, all_backends(), backend_name);

TEST_P(CircuitBreakerHostTests, ReceptorBreakerOfTheHostOptions_OpensIsListedThenCloses) {
  ServiceConfig with_breaker = config("warehouse");
  with_breaker.configure = [this](whizbang::HostOptions& options) {
    whizbang::CircuitBreakerOptions breaker;
    breaker.failure_threshold = 2;
    breaker.cool_down = {.initial = 10s, .factor = 2, .cap = 1min, .jitter = 0};
    options.circuit_breakers.for_receptor("ShipOrderHandler", breaker);
    options.circuit_breaker_clock = [this] { return clock_.now(); };
    options.metrics = metrics_;
    whizbang::RetryPolicy at_once;
    at_once.immediate_retries = 100;
    options.retry_policies.otherwise(at_once);
  };
  Service warehouse(with_breaker);
  EXPECT_TRUE(warehouse.host->circuit_breakers().empty()) << "none has seen work yet";
  warehouse.faults.fail("ShipOrderHandler");
  for (const char* order : {"o-1", "o-2", "o-3"}) deliver(transport_, ship(order));
  const whizbang::HostCycle opened = warehouse.step();
  EXPECT_EQ(opened.inbox.failed, 2u);
  EXPECT_EQ(opened.inbox.deferred, 1u);
  std::vector<whizbang::CircuitBreakerSnapshot> breakers = warehouse.host->circuit_breakers();
  ASSERT_EQ(breakers.size(), 1u);
  EXPECT_EQ(breakers[0].kind, whizbang::CircuitBreakerKind::Receptor);
  EXPECT_EQ(breakers[0].name, "ShipOrderHandler");
  EXPECT_EQ(breakers[0].state, whizbang::CircuitState::Open);
  EXPECT_EQ(breakers[0].recent_failures, 2);
  EXPECT_EQ(breakers[0].open_until, clock_.now() + 10s);
  EXPECT_EQ(log_.count("[EventId 145 CircuitBreakerOpened]"), 1);
  EXPECT_EQ(
      metrics_->gauge(whizbang::CircuitBreakers::kMeter, whizbang::CircuitBreakers::kStateGauge,
                      {{"kind", "receptor"}, {"name", "ShipOrderHandler"}}),
      1);

  warehouse.faults.fail("ShipOrderHandler", 0);  // the warehouse is reachable again
  EXPECT_EQ(warehouse.step().inbox.handled, 0u) << "still cooling down";
  clock_.advance(10s);
  EXPECT_EQ(warehouse.step().inbox.handled, 3u);
  EXPECT_EQ(warehouse.host->circuit_breakers()[0].state, whizbang::CircuitState::Closed);
  EXPECT_EQ(warehouse.faults.count("ShipOrderHandler"), 5) << "2 failures, a trial, 2 more";
}

TEST_P(CircuitBreakerHostTests, NothingConfigured_NoBreakers_FailuresOnlyRetry) {
  Service warehouse(config("warehouse"));
  warehouse.faults.fail("ShipOrderHandler");
  for (const char* order : {"o-1", "o-2", "o-3", "o-4", "o-5", "o-6"}) {
    deliver(transport_, ship(order));
  }
  EXPECT_EQ(warehouse.step().inbox.failed, 6u);
  EXPECT_TRUE(warehouse.host->circuit_breakers().empty());
}

}  // namespace
}  // namespace faults
