// The throughput counters a runner's /api/v1/overview reads (docs/guide/19-operating-services.md),
// on every backend: whizbang.work_coordinator.inbox.handled counts a handling once its
// transaction committed (a throwing handling or a crashed group's: not; a delivered batch handled
// on delivery: yes), and ...outbox.published counts a row once its completion was recorded (a
// failed publish: not).
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "store_backends.hpp"
#include "whizbang/testing/inbox_faults.hpp"
#include "whizbang/transport/in_process_transport.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"

namespace store_test::throughput_counters {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class ThroughputCounterTests : public BackendStoreTest<Backend> {
 protected:
  std::int64_t handled(std::initializer_list<MetricTag> tags = {}) const {
    return metrics_->counter(metric_names::kWorkCoordinatorMeter, metric_names::kInboxHandled,
                             tags);
  }
  std::int64_t published(std::initializer_list<MetricTag> tags = {}) const {
    return metrics_->counter(metric_names::kWorkCoordinatorMeter, metric_names::kOutboxPublished,
                             tags);
  }
  InboxWorkerOptions inbox_options() {
    InboxWorkerOptions options;
    options.service_name = "orders";
    options.service_id = this->options_.instance.instance_id;
    options.max_group_duration = 1h;  // groups end by size here, never by the clock
    options.metrics = metrics_;
    return options;
  }
  static TransportMessage command(int n) {
    return transport_message(outbox_message(ShipOrderCommand{"o-" + std::to_string(n)}, "orders",
                                            MessageId::mint().uuid()));
  }
  // `count` commands in the inbox, each of a stream of its own.
  void store_commands(int count) {
    std::vector<InboxMessage> rows;
    for (int i = 0; i < count; ++i) {
      rows.push_back(inbox_message(outbox_message(ShipOrderCommand{"o-" + std::to_string(i)},
                                                  "orders", MessageId::mint().uuid())));
    }
    ASSERT_TRUE(this->store_->store_inbox_messages(rows, MessageId::mint().uuid()).ok());
  }
  // Throws for the orders in `throwing`.
  static InboxHandler handler(std::set<std::string> throwing = {}) {
    return [throwing](InboxHandling& handling) -> absl::Status {
      const std::string& order = handling.envelope.payload.get_if<ShipOrderCommand>()->order_id;
      if (throwing.contains(order)) throw std::runtime_error("receptor failed for " + order);
      return absl::OkStatus();
    };
  }

  std::shared_ptr<InMemoryMetrics> metrics_ = std::make_shared<InMemoryMetrics>();
};

TYPED_TEST_SUITE(ThroughputCounterTests, Backends, BackendNames);

TYPED_TEST(ThroughputCounterTests, InboxHandled_CountsCommittedHandlingsByType_NotFailedOnes) {
  this->store_commands(4);
  InboxWorker worker(*this->store_, resolve, this->handler({"o-1"}), this->inbox_options());
  absl::StatusOr<InboxCycleResult> cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->handled, 3u);
  EXPECT_EQ(this->handled(), 3);
  const std::string type(MessageTraits<ShipOrderCommand>::info().wire_name);
  EXPECT_EQ(this->handled({{metric_names::kMessageTypeTag, type}}), 3);
}

TYPED_TEST(ThroughputCounterTests, InboxHandled_CrashedGroupNotCounted_CountedOnceWhenRetried) {
  this->store_commands(3);
  InboxWorkerOptions options = this->inbox_options();
  bool crash = true;
  const fault_injection::ScopedInboxFaults faults(
      options.service_name, {.split_completion = false, .before_completion = [&](const WorkItem&) {
                               return crash ? absl::UnavailableError("killed") : absl::OkStatus();
                             }});
  InboxWorker worker(*this->store_, resolve, this->handler(), options);
  absl::StatusOr<InboxCycleResult> crashed = worker.run_once();
  ASSERT_TRUE(crashed.ok()) << crashed.status();
  EXPECT_GT(crashed->crashed, 0u);
  EXPECT_EQ(this->handled(), 0) << "rolled back with its group: not a handling";
  crash = false;
  this->clock_.advance(this->options_.lease_duration + 1s);
  absl::StatusOr<InboxCycleResult> retried = worker.run_once();
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->handled, 3u);
  EXPECT_EQ(this->handled(), 3);
}

// With completion split from the handling (each handling commits on its own, no group), each is
// counted as it commits.
TYPED_TEST(ThroughputCounterTests, InboxHandled_SplitCompletion_EachCommittedHandlingCounted) {
  this->store_commands(3);
  InboxWorkerOptions options = this->inbox_options();
  fault_injection::InboxFaults split;
  split.split_completion = true;
  const fault_injection::ScopedInboxFaults faults(options.service_name, split);
  InboxWorker worker(*this->store_, resolve, this->handler({"o-2"}), options);
  absl::StatusOr<InboxCycleResult> cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->handled, 2u);
  EXPECT_EQ(this->handled(), 2);
}

// SQLite handles a delivered batch without ever writing its inbox rows (accept_deliveries): no
// row completes in the store, and the handling counts all the same.
TYPED_TEST(ThroughputCounterTests, InboxHandled_DeliveredBatchHandledOnDelivery_CountedOnce) {
  InboxWorkerOptions options = this->inbox_options();
  options.handle_on_delivery = true;
  InboxWorker worker(*this->store_, resolve, this->handler(), options);
  const std::vector<TransportMessage> batch{this->command(0), this->command(1), this->command(2)};
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_EQ(this->handled(), 3);
  ASSERT_TRUE(worker.receive(batch).ok()) << "a redelivery is acknowledged";
  EXPECT_EQ(this->handled(), 3) << "a duplicate is not a handling";
}

TYPED_TEST(ThroughputCounterTests, OutboxPublished_CountsRecordedPublishes_NotFailedOnes) {
  InProcessTransport transport;
  OutboxDrainWorkerOptions options;
  options.metrics = this->metrics_;
  OutboxDrainWorker worker(*this->store_, transport, resolve, options);
  // A command nobody consumes yet: its publish fails (retried later).
  const OutboxMessage command = outbox_message(ShipOrderCommand{"s-1"}, "shipping");
  ASSERT_TRUE(this->store_->store_outbox_messages({&command, 1}).ok());
  absl::StatusOr<DrainCycleResult> failed = worker.run_once();
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_EQ(failed->failed, 1u);
  EXPECT_EQ(this->published(), 0);

  auto subscription =
      transport.subscribe("shipping", {{"inbox.store_test", ""}},
                          [](const TransportDestination&, std::span<const TransportMessage>) {
                            return absl::OkStatus();
                          });
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  const OutboxMessage event = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&event, 1}).ok());
  this->clock_.advance(61s);  // past the failed publish's backoff
  absl::StatusOr<DrainCycleResult> drained = worker.run_once();
  ASSERT_TRUE(drained.ok()) << drained.status();
  EXPECT_EQ(drained->published, 2u);
  EXPECT_EQ(this->published(), 2);
  const std::string type(MessageTraits<OrderCreated>::info().wire_name);
  EXPECT_EQ(this->published({{metric_names::kMessageTypeTag, type}}), 1);
}

}  // namespace store_test::throughput_counters
