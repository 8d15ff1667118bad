// A worker with a backlog (more rows waiting than one batch takes) runs its next cycle at once,
// not after its poll interval: a service restarted with thousands of rows pending, or a
// publisher that commits a thousand at a time, must not drain at one batch per poll.
#include <gtest/gtest.h>

#include <atomic>

#include "store_backends.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

// Two and a half batches; a poll interval no test outlives; and how long the three cycles they
// need may take (generous, for sanitizer builds: it is spent only when the test fails).
constexpr int kRows = 250;
constexpr std::size_t kBatch = 100;
constexpr auto kNeverPolls = std::chrono::hours(1);
constexpr auto kThreeCycles = std::chrono::seconds(30);

template <class Backend>
class WorkerBacklogTests : public BackendStoreTest<Backend> {};

TYPED_TEST_SUITE(WorkerBacklogTests, Backends, BackendNames);

TYPED_TEST(WorkerBacklogTests, InboxWorker_FullBatch_RunsTheNextCycleWithoutWaitingForItsPoll) {
  std::vector<InboxMessage> rows;
  for (int i = 0; i < kRows; ++i) {
    rows.push_back(inbox_message(outbox_message(ShipOrderCommand{"o-" + std::to_string(i)},
                                                "shipping", MessageId::mint().uuid())));
  }
  ASSERT_TRUE(this->store_->store_inbox_messages(rows, MessageId::mint().uuid()).ok());
  std::atomic<int> handled{0};
  InboxWorkerOptions options;
  options.service_name = "shipping";
  options.max_batch = kBatch;
  options.poll_interval = std::chrono::duration_cast<std::chrono::milliseconds>(kNeverPolls);
  InboxWorker worker(
      *this->store_, resolve,
      [&](InboxHandling&) {
        ++handled;
        return absl::OkStatus();
      },
      options);
  worker.start();
  EXPECT_TRUE(worker.loop().wait_for_cycles(3, kThreeCycles))
      << "the worker waited for its poll with rows left";
  worker.stop();
  EXPECT_EQ(handled.load(), kRows);
}

TYPED_TEST(WorkerBacklogTests,
           OutboxDrainWorker_FullBatch_RunsTheNextCycleWithoutWaitingForItsPoll) {
  std::vector<OutboxMessage> rows;
  for (int i = 0; i < kRows; ++i) {
    // Event-store-only rows (no destination): drained without a transport.
    rows.push_back(outbox_message(OrderCreated{"o-" + std::to_string(i), i}, std::nullopt,
                                  MessageId::mint().uuid()));
  }
  ASSERT_TRUE(this->store_->store_outbox_messages(rows).ok());
  this->clock_.advance(this->options_.lease_duration + 1s);  // the storing lease lapsed
  OutboxDrainWorkerOptions options;
  options.max_batch = kBatch;
  options.poll_interval = std::chrono::duration_cast<std::chrono::milliseconds>(kNeverPolls);
  OutboxDrainWorker worker(*this->store_, resolve, options);
  worker.start();
  EXPECT_TRUE(worker.loop().wait_for_cycles(3, kThreeCycles))
      << "the worker waited for its poll with rows left";
  worker.stop();
  int left = 0;
  for (const OutboxMessage& row : rows) {
    auto found = whizbang::reader_of(*this->store_)->find_outbox_row(row.message_id);
    ASSERT_TRUE(found.ok()) << found.status();
    left += found->has_value() ? 1 : 0;
  }
  EXPECT_EQ(left, 0) << "rows still in the outbox";
}

}  // namespace
}  // namespace store_test
