// Circuit breakers (docs/guide/11-failures.md, "Circuit breakers"), on every store backend: a
// receptor whose handlings keep failing opens its breaker, and its rows then wait for the
// cool-down in the store without an attempt; half-open, one trial decides; other receptors'
// work goes on. The same for an outbox destination whose publishes fail.
#include "whizbang/workers/circuit_breaker.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "store_backends.hpp"
#include "support/forwarding_transport.hpp"
#include "whizbang/observability/prometheus.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/transport/in_process_transport.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"

namespace store_test {
namespace {

using namespace std::chrono_literals;
using whizbang::CircuitBreakerKind;
using whizbang::CircuitBreakerOptions;
using whizbang::CircuitBreakers;
using whizbang::CircuitState;

// 3 failures within a minute open it for 30 s, then 60 s, 120 s, at most 2 min.
CircuitBreakerOptions three_strikes() {
  CircuitBreakerOptions options;
  options.failure_threshold = 3;
  options.window = 60s;
  options.cool_down = {.initial = 30s, .factor = 2, .cap = 120s, .jitter = 0};
  return options;
}

// Failures due again at once, so only the breaker decides when a row is attempted.
whizbang::RetryPolicies at_once() {
  whizbang::RetryPolicy policy;
  policy.immediate_retries = 100;
  return whizbang::RetryPolicies().otherwise(policy);
}

template <class Backend>
class CircuitBreakerTests : public BackendStoreTest<Backend> {
 protected:
  // An inbox worker whose "PaymentsHandler" (OrderCreated rows) fails while payments_down_ and
  // whose "ShippingHandler" (ShipOrderCommand rows) always succeeds.
  void make_inbox(whizbang::RetryPolicies policies = at_once()) {
    breakers_ = std::make_shared<CircuitBreakers>(
        CircuitBreakerKind::Receptor,
        whizbang::CircuitBreakerRules().for_receptor("PaymentsHandler", three_strikes()),
        CircuitBreakers::Observers{metrics_, log_.logger, this->clock_.fn()});
    whizbang::InboxWorkerOptions options;
    options.retry_policies = std::move(policies);
    options.circuit_breakers = breakers_;
    options.handler_name = [](const whizbang::TransportMessage& message) -> std::string {
      return message.message_type.find("OrderCreated") != std::string::npos ? "PaymentsHandler"
                                                                            : "ShippingHandler";
    };
    inbox_ = std::make_unique<whizbang::InboxWorker>(
        *this->store_, resolve,
        [this](whizbang::InboxHandling& handling) {
          if (handling.item.handler_name == "PaymentsHandler") {
            ++payments_calls_;
            if (payments_down_) return absl::DeadlineExceededError("payment gateway timed out");
          } else {
            ++shipping_calls_;
          }
          return absl::OkStatus();
        },
        options);
  }
  whizbang::MessageId deliver_order(std::string order_id) {
    const whizbang::TransportMessage message =
        transport_message(outbox_message(OrderCreated{std::move(order_id), 1}, "orders"));
    EXPECT_TRUE(inbox_->receive({&message, 1}).ok());
    return message.message_id;
  }
  whizbang::MessageId deliver_shipment(std::string order_id) {
    const whizbang::TransportMessage message =
        transport_message(outbox_message(ShipOrderCommand{std::move(order_id)}, "orders"));
    EXPECT_TRUE(inbox_->receive({&message, 1}).ok());
    return message.message_id;
  }
  whizbang::InboxCycleResult cycle() {
    auto result = inbox_->run_once();
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : whizbang::InboxCycleResult{};
  }
  int attempts(const whizbang::MessageId& id) {
    auto row = whizbang::reader_of(*this->store_)->find_inbox_row(id);
    EXPECT_TRUE(row.ok() && row->has_value());
    return row.ok() && row->has_value() ? (*row)->state.attempts : -1;
  }
  CircuitState state(std::string_view name) {
    for (const auto& breaker : breakers_->snapshot()) {
      if (breaker.name == name) return breaker.state;
    }
    return CircuitState::Closed;
  }
  std::optional<std::int64_t> gauge(std::string_view name) {
    return metrics_->gauge(CircuitBreakers::kMeter, CircuitBreakers::kStateGauge,
                           {{"kind", "receptor"}, {"name", name}});
  }

  CapturedLogger log_;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics_ =
      std::make_shared<whizbang::InMemoryMetrics>();
  std::shared_ptr<CircuitBreakers> breakers_;
  std::unique_ptr<whizbang::InboxWorker> inbox_;
  bool payments_down_ = true;
  int payments_calls_ = 0;
  int shipping_calls_ = 0;
};

TYPED_TEST_SUITE(CircuitBreakerTests, Backends, BackendNames);

TYPED_TEST(CircuitBreakerTests, OpensAfterKFailuresInTheWindow_ThenItsRowsKeepTheirAttempts) {
  this->make_inbox();
  std::vector<whizbang::MessageId> orders;
  for (int i = 0; i < 5; ++i) orders.push_back(this->deliver_order("o-" + std::to_string(i)));
  whizbang::InboxCycleResult first = this->cycle();
  EXPECT_EQ(first.failed, 3u) << "the third failure opens the breaker";
  EXPECT_EQ(first.deferred, 2u) << "the rest are not attempted";
  EXPECT_EQ(this->payments_calls_, 3);
  EXPECT_EQ(this->state("PaymentsHandler"), CircuitState::Open);
  // While it is open: nothing is attempted, no row loses an attempt, and nothing spins (the
  // rows wait in the store: the next cycles claim nothing).
  for (int i = 0; i < 3; ++i) {
    whizbang::InboxCycleResult idle = this->cycle();
    EXPECT_EQ(idle.failed + idle.handled, 0u);
  }
  this->clock_.advance(29s);
  EXPECT_EQ(this->cycle().deferred, 0u) << "deferred rows sleep in the store until the cool-down";
  EXPECT_EQ(this->payments_calls_, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(this->attempts(orders[i]), 1);
  for (int i = 3; i < 5; ++i) EXPECT_EQ(this->attempts(orders[i]), 0) << "never attempted";
}

TYPED_TEST(CircuitBreakerTests, HalfOpenTrialFailure_ReopensForALongerCoolDown) {
  this->make_inbox();
  std::vector<whizbang::MessageId> orders;
  for (int i = 0; i < 4; ++i) orders.push_back(this->deliver_order("o-" + std::to_string(i)));
  EXPECT_EQ(this->cycle().failed, 3u);
  this->clock_.advance(30s);  // the cool-down's end: half-open, one trial
  whizbang::InboxCycleResult trial = this->cycle();
  EXPECT_EQ(trial.failed, 1u) << "one trial, which fails";
  EXPECT_EQ(trial.deferred, 3u);
  EXPECT_EQ(this->payments_calls_, 4);
  EXPECT_EQ(this->state("PaymentsHandler"), CircuitState::Open);
  this->clock_.advance(59s);  // the cool-down doubled: 60 s
  this->cycle();
  EXPECT_EQ(this->payments_calls_, 4);
  this->clock_.advance(2s);
  this->cycle();
  EXPECT_EQ(this->payments_calls_, 5) << "the next trial";
  // Attempts: each row lost only the attempts really made.
  int total = 0;
  for (const auto& id : orders) total += this->attempts(id);
  EXPECT_EQ(total, 5);
}

TYPED_TEST(CircuitBreakerTests, HalfOpenTrialSuccess_ClosesIt_AndTheWaitingRowsAreHandled) {
  this->make_inbox();
  for (int i = 0; i < 5; ++i) this->deliver_order("o-" + std::to_string(i));
  EXPECT_EQ(this->cycle().failed, 3u);
  EXPECT_EQ(this->gauge("PaymentsHandler"), 1);
  this->payments_down_ = false;  // the gateway is back
  this->clock_.advance(30s);
  whizbang::InboxCycleResult recovered = this->cycle();
  EXPECT_EQ(recovered.handled, 5u) << "the trial closed the breaker; the others followed it";
  EXPECT_EQ(this->state("PaymentsHandler"), CircuitState::Closed);
  EXPECT_EQ(this->gauge("PaymentsHandler"), 0);
  EXPECT_EQ(this->metrics_->counter(CircuitBreakers::kMeter, CircuitBreakers::kOpenedCounter,
                                    {{"kind", "receptor"}, {"name", "PaymentsHandler"}}),
            1);
  // The log says so, in order: opened (145), half-open (146), closed (147).
  std::vector<int> events;
  for (const LogLine& line : this->log_.sink->lines()) {
    for (int id : {145, 146, 147}) {
      if (line.text.find("[EventId " + std::to_string(id) + " ") != std::string::npos) {
        events.push_back(id);
      }
    }
  }
  EXPECT_EQ(events, (std::vector<int>{145, 146, 147}));
}

TYPED_TEST(CircuitBreakerTests, OtherReceptorsWork_GoesOnWhileOneIsOpen) {
  this->make_inbox();
  for (int i = 0; i < 3; ++i) this->deliver_order("o-" + std::to_string(i));
  EXPECT_EQ(this->cycle().failed, 3u);
  ASSERT_EQ(this->state("PaymentsHandler"), CircuitState::Open);
  this->deliver_order("o-late");
  for (int i = 0; i < 3; ++i) this->deliver_shipment("s-" + std::to_string(i));
  whizbang::InboxCycleResult cycle = this->cycle();
  EXPECT_EQ(cycle.handled, 3u) << "the shipments";
  EXPECT_EQ(cycle.deferred, 4u) << "the orders, the late one too";
  EXPECT_EQ(this->shipping_calls_, 3);
  EXPECT_EQ(this->payments_calls_, 3);
}

TYPED_TEST(CircuitBreakerTests, PermanentFailures_NeverOpenIt) {
  this->make_inbox(
      whizbang::RetryPolicies().otherwise(whizbang::RetryPolicy::dead_letter_at_once()));
  for (int i = 0; i < 4; ++i) this->deliver_order("o-" + std::to_string(i));
  EXPECT_EQ(this->cycle().failed, 4u) << "dead-lettered at once, each";
  EXPECT_EQ(this->state("PaymentsHandler"), CircuitState::Closed);
}

// ---- destinations ---------------------------------------------------------------------------

// Publishes to an address naming "payments" fail (the broker refuses them); others go through.
class PaymentsRefused final : public test_support::ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  absl::Status publish(const whizbang::TransportDestination& destination,
                       std::span<const whizbang::TransportMessage> batch) override {
    if (destination.address.find("payments") != std::string::npos && refusing) {
      ++refused;
      return absl::InternalError("exchange payments: access refused");
    }
    return ForwardingTransport::publish(destination, batch);
  }
  bool refusing = true;
  int refused = 0;
};

TYPED_TEST(CircuitBreakerTests, DestinationBreaker_DefersItsRows_OtherDestinationsPublish) {
  whizbang::InProcessTransport inner;
  PaymentsRefused transport(inner);
  auto breakers = std::make_shared<CircuitBreakers>(
      CircuitBreakerKind::Destination,
      whizbang::CircuitBreakerRules().all_destinations(three_strikes()),
      CircuitBreakers::Observers{this->metrics_, this->log_.logger, this->clock_.fn()});
  whizbang::OutboxDrainWorkerOptions options;
  options.retry_policies = at_once();
  options.circuit_breakers = breakers;
  options.max_batch = 1;  // one publish call per row and cycle
  whizbang::OutboxDrainWorker drain(*this->store_, transport, resolve, options);
  const auto run = [&] {
    auto result = drain.run_once();
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : whizbang::DrainCycleResult{};
  };
  std::vector<whizbang::OutboxMessage> payments;
  for (int i = 0; i < 4; ++i) {
    payments.push_back(outbox_message(OrderCreated{"p-" + std::to_string(i), 1}, "payments"));
  }
  ASSERT_TRUE(this->store_->store_outbox_messages(payments).ok());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(run().failed, 1u);
  ASSERT_EQ(breakers->snapshot().size(), 1u);
  EXPECT_EQ(breakers->snapshot()[0].state, CircuitState::Open);
  EXPECT_NE(breakers->snapshot()[0].name.find("payments"), std::string::npos);
  // Open: its rows are handed back untouched, and another destination's go out.
  const whizbang::OutboxMessage shipping = outbox_message(OrderCreated{"s-1", 1}, "shipping");
  ASSERT_TRUE(this->store_->store_outbox_messages({&shipping, 1}).ok());
  int published = 0;
  std::size_t deferred = 0;
  for (int i = 0; i < 8; ++i) {
    const whizbang::DrainCycleResult result = run();
    published += static_cast<int>(result.published);
    deferred += result.deferred;
  }
  EXPECT_EQ(published, 1) << "the shipping row";
  EXPECT_EQ(deferred, 4u) << "each payments row once: then it waits in the store";
  EXPECT_EQ(transport.refused, 3);
  int attempts = 0;
  for (const auto& row : payments) {
    auto found = whizbang::reader_of(*this->store_)->find_outbox_row(row.message_id);
    ASSERT_TRUE(found.ok() && found->has_value());
    attempts += (*found)->state.attempts;
  }
  EXPECT_EQ(attempts, 3) << "no attempt counted while open";
  // The destination recovers: half-open, one row tries, and the breaker closes.
  transport.refusing = false;
  this->clock_.advance(30s);
  for (int i = 0; i < 8; ++i) published += static_cast<int>(run().published);
  EXPECT_EQ(published, 5);
  EXPECT_EQ(breakers->snapshot()[0].state, CircuitState::Closed);
}

// ---- the state machine on its own -------------------------------------------------------------

TEST(CircuitBreakerStateTests, FailuresOutsideTheWindow_DoNotOpenIt) {
  ManualClock clock;
  CircuitBreakers breakers(CircuitBreakerKind::Receptor,
                           whizbang::CircuitBreakerRules().otherwise(three_strikes()),
                           {nullptr, nullptr, clock.fn()});
  for (int i = 0; i < 5; ++i) {
    breakers.failed("R");
    clock.advance(31s);  // at most two failures within any 60 s
  }
  EXPECT_TRUE(breakers.admit("R").attempt);
  EXPECT_EQ(breakers.snapshot()[0].state, CircuitState::Closed);
}

TEST(CircuitBreakerStateTests, CoolDownGrowsWithEachFailedTrial_UpToItsCap_AndResetsOnClose) {
  ManualClock clock;
  CircuitBreakers breakers(CircuitBreakerKind::Destination,
                           whizbang::CircuitBreakerRules().otherwise(three_strikes()),
                           {nullptr, nullptr, clock.fn()});
  for (int i = 0; i < 3; ++i) breakers.failed("D");
  const auto defer_of = [&] { return breakers.admit("D").defer; };
  EXPECT_EQ(defer_of(), 30s);
  for (const auto expected : {60s, 120s, 120s}) {
    clock.advance(std::chrono::minutes(5));
    const CircuitBreakers::Admission trial = breakers.admit("D");
    ASSERT_TRUE(trial.attempt && trial.trial);
    EXPECT_FALSE(breakers.admit("D").attempt) << "one trial at a time";
    breakers.failed("D");
    EXPECT_EQ(defer_of(), expected);
  }
  clock.advance(std::chrono::minutes(5));
  ASSERT_TRUE(breakers.admit("D").trial);
  breakers.succeeded("D");
  EXPECT_EQ(breakers.snapshot()[0].state, CircuitState::Closed);
  EXPECT_EQ(breakers.snapshot()[0].times_opened, 4u);
  for (int i = 0; i < 3; ++i) breakers.failed("D");
  EXPECT_EQ(defer_of(), 30s) << "closed, the cool-down starts over";
}

TEST(CircuitBreakerStateTests, RulesPickTheNameThenTheKindThenTheDefault_OffLeavesOneOut) {
  CircuitBreakerOptions by_name = three_strikes();
  by_name.failure_threshold = 1;
  CircuitBreakerOptions by_kind = three_strikes();
  by_kind.failure_threshold = 2;
  whizbang::CircuitBreakerRules rules;
  rules.for_receptor("A", by_name)
      .for_receptor("Off", CircuitBreakerOptions::off())
      .all_receptors(by_kind)
      .otherwise(three_strikes());
  EXPECT_EQ(rules.options_for(CircuitBreakerKind::Receptor, "A"), by_name);
  EXPECT_EQ(rules.options_for(CircuitBreakerKind::Receptor, "B"), by_kind);
  EXPECT_EQ(rules.options_for(CircuitBreakerKind::Destination, "A"), three_strikes());
  EXPECT_FALSE(rules.options_for(CircuitBreakerKind::Receptor, "Off").has_value());
  EXPECT_FALSE(whizbang::CircuitBreakerRules().any(CircuitBreakerKind::Receptor))
      << "nothing configured: no breakers (the default)";
  CircuitBreakers none(CircuitBreakerKind::Receptor, {}, {});
  for (int i = 0; i < 100; ++i) none.failed("R");
  EXPECT_TRUE(none.admit("R").attempt);
  EXPECT_TRUE(none.snapshot().empty());
}

TEST(CircuitBreakerStateTests, StateGauge_IsOnTheMetricsPage) {
  ManualClock clock;
  auto metrics = std::make_shared<whizbang::InMemoryMetrics>();
  CircuitBreakers breakers(CircuitBreakerKind::Receptor,
                           whizbang::CircuitBreakerRules().otherwise(three_strikes()),
                           {metrics, nullptr, clock.fn()});
  for (int i = 0; i < 3; ++i) breakers.failed("shop::Payments");
  const std::string text = whizbang::prometheus_text(*metrics);
  EXPECT_NE(
      text.find("# TYPE whizbang_circuit_breaker_state gauge\n"
                "whizbang_circuit_breaker_state{kind=\"receptor\",name=\"shop::Payments\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("whizbang_circuit_breaker_opened_total{kind=\"receptor\",name=\"shop::"
                      "Payments\"} 1\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace store_test
