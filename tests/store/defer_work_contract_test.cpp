// WorkStore::defer_work on every backend: a claimed row handed back for later without an attempt
// (what an open circuit breaker does, docs/guide/11-failures.md, "Circuit breakers"). Its
// attempts, error and reason stay; it is due again after the wait; its stream waits behind it.
#include <gtest/gtest.h>

#include "store_backends.hpp"
#include "whizbang/store/store_reader.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class DeferWorkContractTests : public BackendStoreTest<Backend> {
 protected:
  std::vector<WorkItem> batch() {
    absl::StatusOr<std::vector<WorkItem>> items = this->store_->process_work_batch({});
    EXPECT_TRUE(items.ok()) << items.status();
    return items.ok() ? *items : std::vector<WorkItem>{};
  }
  void defer(WorkSource source, const MessageId& id, std::chrono::microseconds wait) {
    const WorkDeferral deferral{source, id, wait};
    ASSERT_TRUE(this->store_->defer_work({&deferral, 1}).ok());
  }
};

TYPED_TEST_SUITE(DeferWorkContractTests, Backends, BackendNames);

TYPED_TEST(DeferWorkContractTests,
           DeferredInboxRow_KeepsItsAttemptsAndErrorAndComesBackAfterTheWait) {
  const InboxMessage received = inbox_message(outbox_message(OrderCreated{"o-1", 1}, "orders"));
  ASSERT_TRUE(this->store_->store_inbox_messages({&received, 1}, MessageId::mint().uuid()).ok());
  ASSERT_EQ(this->batch().size(), 1u);
  // One real failure first: attempts 1, its error kept, due again in 60 s.
  const WorkFailure failure{WorkSource::Inbox,   received.message_id,    MessageStatus::None,
                            "payments down",     FailureReason::Unknown, false,
                            RetryDecision{0s, 0}};
  ASSERT_TRUE(this->store_->complete_work({}, {&failure, 1}).ok());
  std::vector<WorkItem> again = this->batch();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempts, 1);

  this->defer(WorkSource::Inbox, received.message_id, 30s);
  EXPECT_TRUE(this->batch().empty()) << "deferred: not offered before its wait ends";
  auto row = reader_of(*this->store_)->find_inbox_row(received.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state.attempts, 1) << "a deferral counts no attempt";
  EXPECT_EQ((*row)->state.error, "payments down");
  EXPECT_FALSE((*row)->state.instance_id.has_value()) << "its lease is released";
  EXPECT_FALSE((*row)->state.dead_lettered_at.has_value());
  this->clock_.advance(29s);
  EXPECT_TRUE(this->batch().empty());
  this->clock_.advance(2s);
  std::vector<WorkItem> back = this->batch();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].attempts, 1);
}

TYPED_TEST(DeferWorkContractTests, DeferredOutboxRow_HoldsBackTheLaterRowsOfItsStream) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage first = outbox_message(OrderCreated{"o-1", 1}, "orders", stream);
  const OutboxMessage second = outbox_message(OrderCreated{"o-1", 2}, "orders", stream);
  ASSERT_TRUE(this->store_->store_outbox_messages(std::vector<OutboxMessage>{first, second}).ok());
  ASSERT_EQ(this->batch().size(), 2u);
  this->defer(WorkSource::Outbox, first.message_id, 10s);
  const WorkCompletion release{WorkSource::Outbox, second.message_id, MessageStatus::None};
  ASSERT_TRUE(this->store_->complete_work({&release, 1}, {}).ok());
  EXPECT_TRUE(this->batch().empty()) << "the stream waits behind its deferred row";
  this->clock_.advance(11s);
  std::vector<WorkItem> items = this->batch();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].message_id, first.message_id);
  EXPECT_EQ(items[0].attempts, 0);
}

TYPED_TEST(DeferWorkContractTests, DeadLetter_IsNotDeferredNorOfferedAgain) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 1}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  ASSERT_EQ(this->batch().size(), 1u);
  const WorkFailure failure{WorkSource::Outbox,
                            message.message_id,
                            MessageStatus::None,
                            "never",
                            FailureReason::ValidationError,
                            true};
  ASSERT_TRUE(this->store_->complete_work({}, {&failure, 1}).ok());
  this->defer(WorkSource::Outbox, message.message_id, 1s);
  this->clock_.advance(2s);
  EXPECT_TRUE(this->batch().empty());
  auto row = reader_of(*this->store_)->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_TRUE((*row)->state.dead_lettered_at.has_value());
  EXPECT_FALSE((*row)->state.scheduled_for.has_value());
}

}  // namespace
}  // namespace store_test
