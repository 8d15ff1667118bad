// Two services in one process exchanging messages outbox -> transport -> inbox, on SQLite.
// Includes scenario 69: a handling whose completion is killed runs again after its lease lapses,
// re-derives the same emission ids, and the second outbox insert is a counted no-op.
#include <gtest/gtest.h>

#include <future>
#include <optional>

#include "store_test_support.hpp"
#include "whizbang/ids/derived_identity.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/testing/inbox_faults.hpp"
#include "whizbang/transport/in_process_transport.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

constexpr int kEmitted = 3;

class EndToEndTests : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteWorkStore> open(const std::string& name, const std::string& service,
                                        bool manual_clock = true) {
    StoreOptions options;
    options.instance = instance(service);
    if (manual_clock) options.now = clock_.fn();
    options.metrics = metrics_;
    auto store = SqliteWorkStore::open(dir_.file(name), options);
    EXPECT_TRUE(store.ok()) << store.status();
    return *std::move(store);
  }

  // The shipping handler: emits kEmitted OrderCreated events whose ids derive from the handling.
  InboxHandler emitting_handler(std::vector<std::vector<MessageId>>& runs) {
    return [&runs](InboxHandling& handling) -> absl::Status {
      std::vector<OutboxMessage> emitted;
      std::vector<MessageId> ids;
      for (int i = 0; i < kEmitted; ++i) {
        absl::StatusOr<MessageId> id = EmissionIdentity::derive(
            handling.envelope.message_id.uuid(), "shipping",
            handling.envelope.dispatch_context.handler_name, "store_test::OrderCreated",
            handling.envelope.emission_sequence().next());
        if (!id.ok()) return id.status();
        ids.push_back(*id);
        emitted.push_back(outbox_message(OrderCreated{"o", i}, "order-events", std::nullopt, *id));
      }
      runs.push_back(ids);
      absl::StatusOr<std::vector<StoredOutboxRow>> rows =
          handling.store.store_outbox_messages(emitted);
      return rows.ok() ? absl::OkStatus() : rows.status();
    };
  }

  std::int64_t deduplicated() {
    return metrics_->counter(metric_names::kWorkCoordinatorMeter,
                             metric_names::kOutboxEmissionDeduplicated,
                             {{metric_names::kMessageTypeTag, "store_test::OrderCreated"}});
  }

  TempDir dir_;
  ManualClock clock_;
  std::shared_ptr<InMemoryMetrics> metrics_ = std::make_shared<InMemoryMetrics>();
  InProcessTransport transport_;
  const Uuid orders_id_ = MessageId::mint().uuid();
  const Uuid shipping_id_ = MessageId::mint().uuid();
};

TEST_F(EndToEndTests,
       Scenario69_LeaseLapsedBeforeCompletion_SameIdsSecondInsertIsACountedNoOpNothingRepublished) {
  auto orders = open("orders.db", "orders");
  auto shipping = open("shipping.db", "shipping");
  OutboxDrainWorkerOptions orders_drain_options;
  orders_drain_options.local_service_id_lookup = [&] { return orders_id_; };
  OutboxDrainWorker orders_drain(*orders, transport_, resolve, orders_drain_options);
  OutboxDrainWorker shipping_drain(*shipping, transport_, resolve);

  std::vector<std::vector<MessageId>> runs;
  int completions_attempted = 0;
  InboxWorkerOptions inbox_options;
  inbox_options.service_name = "shipping";
  inbox_options.service_id = shipping_id_;
  inbox_options.bindings = {{"inbox.store_test", "store_test.ship*"}};
  // Emissions commit before the completion, and the first completion never does.
  std::optional<whizbang::fault_injection::ScopedInboxFaults> faults;
  faults.emplace("shipping",
                 whizbang::fault_injection::InboxFaults{
                     .split_completion = true, .before_completion = [&](const WorkItem&) {
                       return ++completions_attempted == 1
                                  ? absl::UnavailableError("killed before completion")
                                  : absl::OkStatus();
                     }});
  InboxWorker shipping_inbox(*shipping, resolve, emitting_handler(runs), inbox_options);
  auto subscription = shipping_inbox.subscribe(transport_);
  ASSERT_TRUE(subscription.ok());
  std::vector<MessageId> received_by_orders;
  auto orders_sub = transport_.subscribe(
      "orders", {{"order-events", ""}},
      [&](const TransportDestination&, std::span<const TransportMessage> batch) {
        for (const TransportMessage& m : batch) received_by_orders.push_back(m.message_id);
        return absl::OkStatus();
      });

  // orders sends the command; shipping's inbox stores it with orders' service id.
  const OutboxMessage command = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
  ASSERT_TRUE(orders->store_outbox_messages({&command, 1}).ok());
  ASSERT_TRUE(orders_drain.run_once().ok());
  auto inbox_row = *shipping->find_inbox_row(command.message_id);
  ASSERT_TRUE(inbox_row.has_value());
  EXPECT_EQ(inbox_row->message.source_service_id, orders_id_);

  // First handling: emissions commit, the completion is killed; the drain thread publishes the
  // emissions before the process dies.
  auto first = shipping_inbox.run_once();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->crashed, 1u);
  auto published = shipping_drain.run_once();
  ASSERT_TRUE(published.ok());
  EXPECT_EQ(published->published, static_cast<std::size_t>(kEmitted));

  // The process restarts as a new instance. Nothing happens while the dead instance's lease
  // holds; after it lapses the row is re-offered as orphaned and handled again.
  auto restarted = open("shipping.db", "shipping");
  OutboxDrainWorker restarted_drain(*restarted, transport_, resolve);
  faults.reset();
  faults.emplace("shipping", whizbang::fault_injection::InboxFaults{.split_completion = true,
                                                                    .before_completion = {}});
  InboxWorker restarted_inbox(*restarted, resolve, emitting_handler(runs), inbox_options);
  auto idle = restarted_inbox.run_once();
  ASSERT_TRUE(idle.ok());
  EXPECT_EQ(idle->handled + idle->crashed, 0u);
  EXPECT_EQ(runs.size(), 1u);
  clock_.advance(restarted->options().lease_duration + 1s);
  auto second = restarted_inbox.run_once();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->handled, 1u);
  EXPECT_FALSE(restarted->find_inbox_row(command.message_id)->has_value()) << "completed";

  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0], runs[1]) << "the retry re-derives the first run's ids";
  EXPECT_EQ(deduplicated(), kEmitted) << "the second insert is a counted no-op per row";
  auto again = restarted_drain.run_once();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->published, 0u);
  for (const MessageId& id : runs[0]) EXPECT_EQ(transport_.publish_count(id), 1u);
  EXPECT_EQ(received_by_orders.size(), static_cast<std::size_t>(kEmitted));
}

TEST_F(EndToEndTests, AtomicCompletion_KilledHandlingLosesItsEmissions_RetryPublishesEachOnce) {
  auto orders = open("orders.db", "orders");
  auto shipping = open("shipping.db", "shipping");
  OutboxDrainWorker orders_drain(*orders, transport_, resolve);
  OutboxDrainWorker shipping_drain(*shipping, transport_, resolve);
  std::vector<std::vector<MessageId>> runs;
  int attempts = 0;
  InboxWorkerOptions inbox_options;
  inbox_options.service_name = "shipping";
  inbox_options.service_id = shipping_id_;
  inbox_options.bindings = {{"inbox.store_test", ""}};
  const whizbang::fault_injection::ScopedInboxFaults faults(
      "shipping", {.split_completion = false, .before_completion = [&](const WorkItem&) {
                     return ++attempts == 1 ? absl::UnavailableError("killed") : absl::OkStatus();
                   }});
  InboxWorker shipping_inbox(*shipping, resolve, emitting_handler(runs), inbox_options);
  auto subscription = shipping_inbox.subscribe(transport_);
  ASSERT_TRUE(subscription.ok());

  const OutboxMessage command = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
  ASSERT_TRUE(orders->store_outbox_messages({&command, 1}).ok());
  ASSERT_TRUE(orders_drain.run_once().ok());
  ASSERT_EQ(shipping_inbox.run_once()->crashed, 1u);
  EXPECT_EQ(shipping_drain.run_once()->published, 0u) << "nothing of the handling committed";
  // The unknown (nil) source id of the envelope fell back to the receiving service.
  EXPECT_EQ((*shipping->find_inbox_row(command.message_id))->message.source_service_id,
            shipping_id_);
  clock_.advance(shipping->options().lease_duration + 1s);
  ASSERT_EQ(shipping_inbox.run_once()->handled, 1u);
  EXPECT_EQ(shipping_drain.run_once()->published, static_cast<std::size_t>(kEmitted));
  EXPECT_EQ(deduplicated(), 0);
  for (const MessageId& id : runs[1]) EXPECT_EQ(transport_.publish_count(id), 1u);
}

TEST_F(EndToEndTests, ThreadedWorkers_DeliverOnCommitWithoutWaitingForThePollInterval) {
  auto orders = open("orders.db", "orders", /*manual_clock=*/false);
  auto shipping = open("shipping.db", "shipping", /*manual_clock=*/false);
  OutboxDrainWorkerOptions drain_options;
  drain_options.poll_interval = 30s;  // far longer than the test may take
  OutboxDrainWorker orders_drain(*orders, transport_, resolve, drain_options);
  std::promise<std::string> handled;
  InboxWorkerOptions inbox_options;
  inbox_options.service_name = "shipping";
  inbox_options.service_id = shipping_id_;
  inbox_options.bindings = {{"inbox.store_test", ""}};
  inbox_options.poll_interval = 30s;
  InboxWorker shipping_inbox(
      *shipping, resolve,
      [&](InboxHandling& handling) {
        handled.set_value(handling.envelope.payload.get_if<ShipOrderCommand>()->order_id);
        return absl::OkStatus();
      },
      inbox_options);
  auto subscription = shipping_inbox.subscribe(transport_);
  ASSERT_TRUE(subscription.ok());
  orders_drain.start();
  shipping_inbox.start();
  // Each has finished its first cycle (on an empty store) and now waits on its 30 s poll.
  ASSERT_TRUE(orders_drain.loop().wait_for_cycles(1, 10s));
  ASSERT_TRUE(shipping_inbox.loop().wait_for_cycles(1, 10s));

  const auto started = std::chrono::steady_clock::now();
  const OutboxMessage command = outbox_message(ShipOrderCommand{"fast"}, "shipping");
  ASSERT_TRUE(orders->store_outbox_messages({&command, 1}).ok());
  std::future<std::string> result = handled.get_future();
  ASSERT_EQ(result.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(result.get(), "fast");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  // Woken, not polled: each finishes a second cycle long before its poll is due.
  EXPECT_TRUE(orders_drain.loop().wait_for_cycles(2, 5s));
  EXPECT_TRUE(shipping_inbox.loop().wait_for_cycles(2, 5s));
  orders_drain.stop();
  shipping_inbox.stop();
}

}  // namespace
}  // namespace store_test
