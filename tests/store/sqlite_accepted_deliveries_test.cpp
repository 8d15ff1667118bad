// SqliteWorkStore::accept_deliveries() and keep_accepted(): a delivered batch deduplicated and
// handed back ready to handle, with no inbox row written, unless order or an unreadable event
// says it must wait as a row (docs/guide/06-stores-and-workers.md, "Handling on delivery").
#include <gtest/gtest.h>

#include <vector>

#include "store_test_support.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/store/store_reader.hpp"

namespace store_test {
namespace {

using namespace whizbang;

class SqliteAcceptedDeliveriesTests : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.instance = instance("shipping");
    options_.now = clock_.fn();
    auto store = SqliteWorkStore::open(dir_.file("accept.db"), options_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  static InboxMessage command(int n, std::optional<Uuid> stream = std::nullopt) {
    return inbox_message(
        outbox_message(ShipOrderCommand{"o-" + std::to_string(n)}, "shipping", stream));
  }
  static InboxMessage event(int n, Uuid stream) {
    return inbox_message(
        outbox_message(OrderCreated{"o-" + std::to_string(n), n}, "events", stream));
  }
  std::optional<InboxRow> row(const MessageId& id) {
    auto found = reader_of(*store_)->find_inbox_row(id);
    EXPECT_TRUE(found.ok()) << found.status();
    return found.ok() ? *found : std::nullopt;
  }
  absl::StatusOr<AcceptedDeliveries> accept(const std::vector<InboxMessage>& messages) {
    return store_->accept_deliveries(messages, sender_);
  }

  TempDir dir_;
  ManualClock clock_;
  StoreOptions options_;
  std::unique_ptr<SqliteWorkStore> store_;
  const Uuid sender_ = MessageId::mint().uuid();
};

TEST_F(SqliteAcceptedDeliveriesTests, Accepted_ReadyToHandle_NoInboxRowWritten) {
  ASSERT_TRUE(store_->accepts_deliveries());
  const std::vector<InboxMessage> batch = {command(1), command(2)};
  Transaction tx(*store_);
  absl::StatusOr<AcceptedDeliveries> accepted = accept(batch);
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  ASSERT_EQ(accepted->ready.size(), 2u);
  EXPECT_EQ(accepted->stored, 0u);
  EXPECT_EQ(accepted->duplicates, 0u);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const WorkItem& item = accepted->ready[i];
    EXPECT_EQ(item.message_id, batch[i].message_id) << "in the order given";
    EXPECT_EQ(item.source, WorkSource::Inbox);
    EXPECT_EQ(item.handler_name, batch[i].handler_name);
    EXPECT_EQ(item.envelope_json, batch[i].envelope_json);
    EXPECT_EQ(item.source_service_id, sender_) << "an unknown sender is the receiving service";
    EXPECT_FALSE(row(item.message_id).has_value()) << "not even inside the transaction";
  }
  ASSERT_TRUE(tx.commit().ok());
  for (const InboxMessage& message : batch) EXPECT_FALSE(row(message.message_id).has_value());
}

TEST_F(SqliteAcceptedDeliveriesTests, SeenBefore_IsADuplicate_WhetherAcceptedOrStored) {
  const InboxMessage accepted_once = command(1);
  const InboxMessage stored_once = command(2);
  {
    Transaction tx(*store_);
    ASSERT_TRUE(accept({accepted_once}).ok());
    ASSERT_TRUE(tx.commit().ok());
  }
  ASSERT_TRUE(store_->store_inbox_messages({&stored_once, 1}, sender_).ok());
  Transaction tx(*store_);
  absl::StatusOr<AcceptedDeliveries> again = accept({accepted_once, stored_once});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->ready.empty());
  EXPECT_EQ(again->duplicates, 2u);
}

TEST_F(SqliteAcceptedDeliveriesTests, RolledBack_NothingKept_TheRedeliveryIsAcceptedAgain) {
  const InboxMessage message = command(1);
  {
    Transaction tx(*store_);
    ASSERT_TRUE(accept({message}).ok());
  }  // rolled back: as a crash before the commit (the delivery was never acknowledged)
  Transaction tx(*store_);
  absl::StatusOr<AcceptedDeliveries> again = accept({message});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->ready.size(), 1u);
}

// Stream order: a message whose stream has a row still to handle waits behind it, as a row; so
// does every later message of that stream in the same call. Other streams go on.
TEST_F(SqliteAcceptedDeliveriesTests, StreamWithAWaitingRow_StoredBehindIt) {
  const Uuid busy = MessageId::mint().uuid();
  const Uuid free = MessageId::mint().uuid();
  const InboxMessage waiting = command(1, busy);
  ASSERT_TRUE(store_->store_inbox_messages({&waiting, 1}, sender_).ok());
  const std::vector<InboxMessage> batch = {command(2, busy), command(3, free), command(4, busy)};
  Transaction tx(*store_);
  absl::StatusOr<AcceptedDeliveries> accepted = accept(batch);
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  ASSERT_EQ(accepted->ready.size(), 1u);
  EXPECT_EQ(accepted->ready[0].message_id, batch[1].message_id);
  EXPECT_EQ(accepted->stored, 2u);
  ASSERT_TRUE(tx.commit().ok());
  for (const InboxMessage* stored : {&batch[0], &batch[2]}) {
    const std::optional<InboxRow> kept = row(stored->message_id);
    ASSERT_TRUE(kept.has_value());
    EXPECT_FALSE(kept->state.instance_id.has_value()) << "unleased: any worker claims it";
  }
  // The claim offers the stream in order.
  WorkBatchRequest request;
  request.claim_outbox = false;
  absl::StatusOr<std::vector<WorkItem>> claimed = store_->process_work_batch(request);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  std::vector<MessageId> order;
  for (const WorkItem& item : *claimed) order.push_back(item.message_id);
  EXPECT_EQ(order,
            (std::vector<MessageId>{waiting.message_id, batch[0].message_id, batch[2].message_id}));
}

TEST_F(SqliteAcceptedDeliveriesTests, DeadLetterOnTheStream_HoldsNothingBack) {
  const Uuid stream = MessageId::mint().uuid();
  const InboxMessage dead = command(1, stream);
  ASSERT_TRUE(store_->store_inbox_messages({&dead, 1}, sender_).ok());
  const WorkFailure failure{WorkSource::Inbox, dead.message_id,        MessageStatus::None,
                            "poison",          FailureReason::Unknown, /*dead_letter=*/true};
  ASSERT_TRUE(store_->complete_work({}, {&failure, 1}).ok());
  Transaction tx(*store_);
  absl::StatusOr<AcceptedDeliveries> accepted = accept({command(2, stream)});
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ(accepted->ready.size(), 1u);
}

// An event is in its stream once accepted, as a claim puts it there: the handling reads it.
TEST_F(SqliteAcceptedDeliveriesTests, Event_AppendedToItsStreamWhenAccepted) {
  const Uuid stream = MessageId::mint().uuid();
  const std::vector<InboxMessage> batch = {event(1, stream), event(2, stream)};
  Transaction tx(*store_);
  absl::StatusOr<AcceptedDeliveries> accepted = accept(batch);
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  ASSERT_EQ(accepted->ready.size(), 2u);
  for (const WorkItem& item : accepted->ready) {
    EXPECT_TRUE(has_status(item.status, MessageStatus::EventStored));
  }
  ASSERT_TRUE(tx.commit().ok());
  absl::StatusOr<std::vector<StoredEvent>> events = store_->read_stream(stream);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event_id, batch[0].message_id);
  EXPECT_EQ((*events)[0].version, 1);
  EXPECT_EQ((*events)[1].version, 2);
}

// An event the store cannot take apart is not lost: it is stored, and the claim quarantines it.
TEST_F(SqliteAcceptedDeliveriesTests, UnreadableEvent_StoredForTheClaimToQuarantine) {
  InboxMessage broken = event(1, MessageId::mint().uuid());
  broken.envelope_json = R"({"id":"not an envelope"})";
  {
    Transaction tx(*store_);
    absl::StatusOr<AcceptedDeliveries> accepted = accept({broken});
    ASSERT_TRUE(accepted.ok()) << accepted.status();
    EXPECT_TRUE(accepted->ready.empty());
    EXPECT_EQ(accepted->stored, 1u);
    ASSERT_TRUE(tx.commit().ok());
  }
  WorkBatchRequest request;
  request.claim_outbox = false;
  ASSERT_TRUE(store_->process_work_batch(request).ok());
  const std::optional<InboxRow> kept = row(broken.message_id);
  ASSERT_TRUE(kept.has_value());
  EXPECT_TRUE(kept->state.dead_lettered_at.has_value());
  EXPECT_EQ(kept->state.failure_reason, FailureReason::SerializationError);
}

// A ready message whose handling failed: its row is written leased to this instance, and the
// failure then applies to it as to a claimed row.
TEST_F(SqliteAcceptedDeliveriesTests, KeptAfterAFailure_TheFailureIsRecordedOnIt) {
  const InboxMessage message = command(1, MessageId::mint().uuid());
  {
    Transaction tx(*store_);
    ASSERT_TRUE(accept({message}).ok());
    ASSERT_TRUE(store_->keep_accepted({&message, 1}, sender_).ok());
    const std::optional<InboxRow> kept = row(message.message_id);
    ASSERT_TRUE(kept.has_value());
    EXPECT_EQ(kept->state.instance_id, options_.instance.instance_id);
    const WorkFailure failure{WorkSource::Inbox, message.message_id,     MessageStatus::None,
                              "receptor threw",  FailureReason::Unknown, false};
    ASSERT_TRUE(store_->complete_work({}, {&failure, 1}).ok());
    ASSERT_TRUE(tx.commit().ok());
  }
  const std::optional<InboxRow> failed = row(message.message_id);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->state.attempts, 1);
  EXPECT_EQ(failed->state.error, "receptor threw");
  EXPECT_TRUE(failed->state.scheduled_for.has_value()) << "retried after its backoff";
  EXPECT_EQ(failed->message.handler_name, message.handler_name);
  EXPECT_EQ(failed->message.envelope_json, message.envelope_json);
  EXPECT_EQ(failed->message.stream_id, message.stream_id);
}

TEST_F(SqliteAcceptedDeliveriesTests, OutsideATransaction_Refused) {
  const InboxMessage message = command(1);
  EXPECT_EQ(accept({message}).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->keep_accepted({&message, 1}, sender_).code(),
            absl::StatusCode::kFailedPrecondition);
  Transaction tx(*store_);
  absl::StatusOr<AcceptedDeliveries> accepted = accept({message});
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ(accepted->ready.size(), 1u) << "the refusal kept nothing";
}

}  // namespace
}  // namespace store_test
