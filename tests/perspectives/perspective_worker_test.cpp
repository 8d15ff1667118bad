// The durable path: events stored through the work coordinator get perspective events, which the
// PerspectiveWorker applies; the store's completion opens the WhenAll gate exactly once, also
// across a failure and its retry.
#include <gtest/gtest.h>

#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/store_reader.hpp>
#include <whizbang/workers/perspective_worker.hpp>

#include "fixture.hpp"

namespace persp {
namespace {

using whizbang::MessageId;

class PerspectiveWorkerTests : public ::testing::TestWithParam<Backend> {
 protected:
  // Stores `envelope` as an event-store-only outbox row and runs the coordinator once.
  static void store_event(PerspectiveFixture& f, const whizbang::Envelope& envelope) {
    whizbang::OutboxMessage row;
    row.message_id = envelope.message_id;
    row.message_type = std::string(envelope.payload.info()->wire_name);
    row.envelope_json = whizbang::serialize_envelope(envelope);
    row.stream_id = envelope.stream_id();
    row.is_event = true;
    whizbang::WorkBatchRequest request;
    request.new_outbox.push_back(row);
    ASSERT_TRUE(f.store->process_work_batch(request).ok());
  }
};

TEST_P(PerspectiveWorkerTests, AppliesStoredEventsAndFiresTheGateOncePerEvent) {
  PerspectiveFixture f(GetParam());
  const whizbang::Uuid stream = MessageId::mint().uuid();
  store_event(f, f.envelope(OrderCreated{{}, "o-1", 2}, stream));
  store_event(f, f.envelope(OrderShipped{{}, "o-1"}, stream));
  whizbang::PerspectiveWorker worker(*f.store, *f.runner);

  auto cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->applied, 3u);  // Count + Summary for OrderCreated, Summary for OrderShipped
  EXPECT_EQ(cycle->events_completed, 2u);
  EXPECT_EQ(f.journal.count("PostPerspectiveInline"), 2);  // OrderCreated's two perspectives
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 1);
  EXPECT_EQ(f.journal.count("PostLifecycleInline"), 1);

  const OrderSummary summary = f.model<OrderSummary>(kSummary, stream);
  EXPECT_EQ(summary.items, 2);
  EXPECT_TRUE(summary.shipped);
  EXPECT_EQ(f.model<OrderCount>(kCount, stream).created, 1);
  auto rows = whizbang::reader_of(*f.store)->perspective_events(stream);
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());

  auto idle = worker.run_once();
  ASSERT_TRUE(idle.ok());
  EXPECT_EQ(idle->applied, 0u);
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 1);
}

// Nothing renews the leases of a claimed batch, so a cycle stops applying once max_batch_time
// has passed since its claim: the rest stays leased to this instance and the next cycle's claim
// leases it again, so a slow batch is never handed to another instance half-applied.
TEST_P(PerspectiveWorkerTests, SlowBatch_LeavesTheRestToTheNextClaimWhichLeasesItAgain) {
  PerspectiveFixture f(GetParam());
  const whizbang::Uuid stream = MessageId::mint().uuid();
  store_event(f, f.envelope(OrderCreated{{}, "o-1", 2}, stream));
  store_event(f, f.envelope(OrderShipped{{}, "o-1"}, stream));
  // Every batch is over its time once its first item is applied.
  whizbang::PerspectiveWorkerOptions options;
  options.max_batch_time = std::chrono::milliseconds(0);
  whizbang::PerspectiveWorker worker(*f.store, *f.runner, options);
  auto leases = [&] {
    std::vector<whizbang::TimePoint> expiries;
    auto rows = whizbang::reader_of(*f.store)->perspective_events(stream);
    EXPECT_TRUE(rows.ok());
    for (const whizbang::PerspectiveEventRow& row : *rows) {
      expiries.push_back(row.lease_expiry.value_or(whizbang::TimePoint{}));
    }
    return expiries;
  };

  auto first = worker.run_once();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->applied, 1u);
  EXPECT_EQ(first->left_for_next_cycle, 2u);
  const std::vector<whizbang::TimePoint> first_leases = leases();
  ASSERT_EQ(first_leases.size(), 2u);

  f.now += std::chrono::seconds(10);
  auto second = worker.run_once();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->applied, 1u);
  EXPECT_EQ(second->left_for_next_cycle, 1u);
  const std::vector<whizbang::TimePoint> second_leases = leases();
  ASSERT_EQ(second_leases.size(), 1u);
  EXPECT_EQ(second_leases[0], first_leases[1] + std::chrono::seconds(10));  // leased again

  auto third = worker.run_once();
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->applied, 1u);
  EXPECT_EQ(third->left_for_next_cycle, 0u);
  const OrderSummary summary = f.model<OrderSummary>(kSummary, stream);
  EXPECT_EQ(summary.items, 2);
  EXPECT_TRUE(summary.shipped);
  EXPECT_EQ(f.model<OrderCount>(kCount, stream).created, 1);
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 1);
  EXPECT_EQ(f.journal.count("PostLifecycleInline"), 1);
}

TEST_P(PerspectiveWorkerTests, FailedPerspective_GateOpensOnceWhenTheRetrySucceeds) {
  PerspectiveFixture f(GetParam());
  const whizbang::Uuid stream = MessageId::mint().uuid();
  store_event(f, f.envelope(OrderCreated{{}, "o-1", 1}, stream));
  whizbang::PerspectiveWorker worker(*f.store, *f.runner);

  f.behaviour.fail_count = true;
  auto first = worker.run_once();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->applied, 1u);
  EXPECT_EQ(first->failed, 1u);
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 0) << "Count has not completed";
  EXPECT_EQ(f.journal.count("PostLifecycleInline"), 0);

  f.behaviour.fail_count = false;
  auto early = worker.run_once();
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->applied, 0u) << "the failed row waits for its backoff";

  f.now += whizbang::failure_backoff(0) + std::chrono::seconds(1);
  auto retry = worker.run_once();
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->applied, 1u);
  EXPECT_EQ(retry->events_completed, 1u);
  EXPECT_EQ(f.journal.count("apply:Summary"), 1) << "Summary is not applied again";
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 1);
  EXPECT_EQ(f.journal.count("PostLifecycleInline"), 1);
  EXPECT_EQ(f.model<OrderCount>(kCount, stream).created, 1);
}

TEST_P(PerspectiveWorkerTests, EnvelopeRebuiltFromTheEventStoreKeepsIdAndHops) {
  PerspectiveFixture f(GetParam());
  const whizbang::Uuid stream = MessageId::mint().uuid();
  const whizbang::Envelope original = f.envelope(OrderCreated{{}, "o-9", 4}, stream);
  store_event(f, original);
  auto work = f.store->claim_perspective_work(10);
  ASSERT_TRUE(work.ok() && !work->empty());
  auto rebuilt = whizbang::envelope_from_stored_event(work->front(), test_registry());
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(rebuilt->message_id, original.message_id);
  ASSERT_EQ(rebuilt->hops.size(), original.hops.size());
  EXPECT_EQ(rebuilt->hops.front().service_instance, original.hops.front().service_instance);
  EXPECT_EQ(rebuilt->stream_id(), stream);
  ASSERT_NE(rebuilt->payload.get_if<OrderCreated>(), nullptr);
  EXPECT_EQ(rebuilt->payload.get_if<OrderCreated>()->items, 4);
}

// More waiting than one batch: the worker's next cycle starts at once, not after its poll.
TEST_P(PerspectiveWorkerTests, FullBatch_RunsTheNextCycleWithoutWaitingForItsPoll) {
  PerspectiveFixture f(GetParam());
  std::vector<whizbang::Uuid> streams;
  for (int i = 0; i < 5; ++i) {
    streams.push_back(MessageId::mint().uuid());
    store_event(f, f.envelope(OrderCreated{{}, "o-" + std::to_string(i), 1}, streams.back()));
  }
  whizbang::PerspectiveWorkerOptions options;
  options.max_batch = 2;  // 10 perspective events (Count and Summary of 5): 5 full batches
  options.poll_interval = std::chrono::hours(1);
  whizbang::PerspectiveWorker worker(*f.store, *f.runner, options);
  worker.start();
  EXPECT_TRUE(worker.loop().wait_for_cycles(5, std::chrono::seconds(30)))
      << "the worker waited for its poll with events left";
  worker.stop();
  for (const whizbang::Uuid& stream : streams) {
    EXPECT_EQ(f.model<OrderCount>(kCount, stream).created, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, PerspectiveWorkerTests, all_backends(), backend_name);

}  // namespace
}  // namespace persp
