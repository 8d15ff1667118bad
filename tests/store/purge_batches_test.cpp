// The retention purge in batches, on every backend: a purge of more expired rows than
// RetentionOptions::purge_batch_size takes one transaction per batch (so a worker waits for one
// batch at most), removes every expired row and keeps the recent ones.
#include <gtest/gtest.h>

#include "store_backends.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class PurgeBatchesTests : public BackendStoreTest<Backend> {
 protected:
  // `count` published outbox rows (a tombstone or remembered id each) and as many inbox ids.
  void store_published(int count) {
    for (int i = 0; i < count; ++i) {
      const OutboxMessage row = outbox_message(OrderCreated{"o-" + std::to_string(i), 5}, "orders");
      ASSERT_TRUE(this->store_->store_outbox_messages({&row, 1}).ok());
      const WorkCompletion published{WorkSource::Outbox, row.message_id, MessageStatus::Published};
      ASSERT_TRUE(this->store_->complete_work({&published, 1}, {}).ok());
      const InboxMessage received = inbox_message(row);
      ASSERT_TRUE(
          this->store_->store_inbox_messages({&received, 1}, MessageId::mint().uuid()).ok());
    }
  }
  void record_invocations(int count) {
    for (int i = 0; i < count; ++i) {
      ReceptorInvocationRecord record;
      record.receptor_id = "shop::Mailer";
      record.service_name = "orders";
      record.completed_at = this->clock_.now();
      ASSERT_TRUE(this->store_->record_receptor_invocations(MessageId::mint(), {&record, 1}).ok());
    }
  }
};

TYPED_TEST_SUITE(PurgeBatchesTests, Backends, BackendNames);

TYPED_TEST(PurgeBatchesTests, PurgeOfManyExpiredRows_OneTransactionPerBatch_EveryExpiredRowGone) {
  this->store_published(25);
  this->record_invocations(12);
  this->clock_.advance(8 * 24h);  // past the default retention of 7 days
  this->store_published(3);       // recent: kept
  this->record_invocations(2);

  RetentionOptions retention;
  retention.purge_batch_size = 10;
  absl::StatusOr<PurgeCounts> purged = this->store_->purge(retention);
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->outbox_tombstones, 25);
  EXPECT_EQ(purged->inbox_deduplication, 25);
  EXPECT_EQ(purged->receptor_invocations, 12);
  if constexpr (std::is_same_v<TypeParam, MemoryBackend>) {
    EXPECT_EQ(purged->transactions, 1) << "in memory, one pass";
  } else {
    // Deduplication and tombstones 10 + 10 + 5, invocations 10 + 2, and one statement each for
    // service instances, refused deliveries and dispatch keys (nothing to remove).
    EXPECT_EQ(purged->transactions, 3 + 3 + 2 + 1 + 1 + 1);
  }

  absl::StatusOr<PurgeCounts> again = this->store_->purge(retention);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->outbox_tombstones + again->inbox_deduplication + again->receptor_invocations, 0)
      << "the recent rows are within their retention";
}

// A batch exactly the size of what expired ends with one statement that finds nothing: the
// purge never stops with expired rows left.
TYPED_TEST(PurgeBatchesTests, ExpiredRowsAMultipleOfTheBatch_AllRemoved) {
  this->store_published(20);
  this->clock_.advance(8 * 24h);
  RetentionOptions retention;
  retention.purge_batch_size = 10;
  absl::StatusOr<PurgeCounts> purged = this->store_->purge(retention);
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->outbox_tombstones, 20);
  EXPECT_EQ(purged->inbox_deduplication, 20);
}

}  // namespace
}  // namespace store_test
