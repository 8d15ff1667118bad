// The WorkStore contract, written once and run against every implementation (memory, SQLite).
// Scenario numbers refer to the work coordinator scenarios of the reference implementation.
#include <gtest/gtest.h>

#include <thread>

#include "store_backends.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class WorkStoreContractTests : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.instance = instance("orders");
    options_.now = clock_.fn();
    options_.metrics = metrics_;
    store_ = Backend::open(options_, dir_);
    ASSERT_NE(store_, nullptr);
  }

  std::vector<WorkItem> batch(WorkBatchRequest request = {}) {
    absl::StatusOr<std::vector<WorkItem>> items = store_->process_work_batch(request);
    EXPECT_TRUE(items.ok()) << items.status();
    return items.ok() ? *items : std::vector<WorkItem>{};
  }
  std::optional<OutboxRow> outbox_row(const MessageId& id) {
    auto row = whizbang::reader_of(*store_)->find_outbox_row(id);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() ? *row : std::nullopt;
  }
  std::int64_t deduplicated(std::string_view type) {
    return metrics_->counter(metric_names::kWorkCoordinatorMeter,
                             metric_names::kOutboxEmissionDeduplicated,
                             {{metric_names::kMessageTypeTag, type}});
  }

  TempDir dir_;
  ManualClock clock_;
  std::shared_ptr<InMemoryMetrics> metrics_ = std::make_shared<InMemoryMetrics>();
  StoreOptions options_;
  std::unique_ptr<WorkStore> store_;
};

TYPED_TEST_SUITE(WorkStoreContractTests, Backends, BackendNames);

TYPED_TEST(WorkStoreContractTests,
           Scenario61_OutboxStoredTwice_SecondIsNotNewlyCreatedAndAddsNoRow) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  auto first = this->store_->store_outbox_messages({&message, 1});
  auto second = this->store_->store_outbox_messages({&message, 1});
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ(first->size(), 1u);
  ASSERT_EQ(second->size(), 1u);
  EXPECT_TRUE((*first)[0].was_newly_created);
  EXPECT_FALSE((*second)[0].was_newly_created);
  EXPECT_EQ((*second)[0].message_id, message.message_id);
  EXPECT_EQ(this->batch().size(), 1u);  // one row, not two
  EXPECT_EQ(this->deduplicated("store_test::OrderCreated"), 1);
}

// Large enough that a backend sending a batch in parts splits it; each id's repeat sits far
// from its first row, and its row differs, so the row kept shows which one won.
TYPED_TEST(WorkStoreContractTests, LargeBatchWithRepeatedIds_KeepsTheFirstRowOfEachIdOnce) {
  std::vector<OutboxMessage> batch;
  for (int i = 0; i < 150; ++i) {
    batch.push_back(outbox_message(OrderCreated{"o-" + std::to_string(i), i}, "orders"));
  }
  for (int i = 0; i < 100; ++i) {
    OutboxMessage repeat = batch[static_cast<std::size_t>(i)];
    repeat.destination = "billing";
    batch.push_back(std::move(repeat));
  }
  auto stored = this->store_->store_outbox_messages(batch);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ((*stored)[i].message_id, batch[i].message_id) << i;  // in input order
    EXPECT_EQ((*stored)[i].was_newly_created, i < 150) << i;
  }
  for (std::size_t i : {0u, 99u, 149u}) {
    std::optional<OutboxRow> row = this->outbox_row(batch[i].message_id);
    ASSERT_TRUE(row.has_value()) << i;
    EXPECT_EQ(row->message.destination, "orders") << i;
  }
  EXPECT_EQ(this->deduplicated("store_test::OrderCreated"), 100);
}

TYPED_TEST(WorkStoreContractTests, Scenario62_InboxStoredTwice_SecondReturnsNoRowAndRowIsUnleased) {
  const InboxMessage message = inbox_message(outbox_message(OrderCreated{"o-1", 5}, "orders"));
  const Uuid self = MessageId::mint().uuid();
  auto first = this->store_->store_inbox_messages({&message, 1}, self);
  auto second = this->store_->store_inbox_messages({&message, 1}, self);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->size(), 1u);
  EXPECT_TRUE(second->empty());
  auto row = whizbang::reader_of(*this->store_)->find_inbox_row(message.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_FALSE((*row)->state.instance_id.has_value());
  EXPECT_FALSE((*row)->state.lease_expiry.has_value());
  // Permanent: even after the row is completed and deleted, the id stays a duplicate.
  const WorkCompletion done{WorkSource::Inbox, message.message_id, MessageStatus::EventStored};
  ASSERT_TRUE(this->store_->complete_work({&done, 1}, {}).ok());
  auto third = this->store_->store_inbox_messages({&message, 1}, self);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->empty());
}

TYPED_TEST(WorkStoreContractTests, InboxAllZeroSourceServiceId_FallsBackToTheReceivingService) {
  const Uuid self = MessageId::mint().uuid();
  const Uuid publisher = MessageId::mint().uuid();
  const InboxMessage unknown = inbox_message(outbox_message(OrderCreated{"a", 1}, "orders"));
  const InboxMessage known =
      inbox_message(outbox_message(OrderCreated{"b", 2}, "orders"), publisher);
  const InboxMessage both[] = {unknown, known};
  ASSERT_TRUE(this->store_->store_inbox_messages(both, self).ok());
  EXPECT_EQ((*whizbang::reader_of(*this->store_)->find_inbox_row(unknown.message_id))
                ->message.source_service_id,
            self);
  EXPECT_EQ((*whizbang::reader_of(*this->store_)->find_inbox_row(known.message_id))
                ->message.source_service_id,
            publisher);
}

TYPED_TEST(WorkStoreContractTests, Scenario63_LeaseLapsedWithoutCompletion_ReclaimedAsOrphaned) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  std::vector<WorkItem> first = this->batch();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].is_orphaned);
  // No completion lands; the lease lapses.
  this->clock_.advance(this->options_.lease_duration + 1s);
  std::vector<WorkItem> again = this->batch();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].message_id, message.message_id);
  EXPECT_TRUE(again[0].is_orphaned);
  EXPECT_EQ(again[0].lease_expiry, this->clock_.now() + this->options_.lease_duration);
}

TYPED_TEST(WorkStoreContractTests, ScheduledOutboxRow_IsNotClaimedBeforeItIsDue) {
  OutboxMessage message = outbox_message(OrderCreated{"o-later", 1}, "orders");
  message.scheduled_for = this->clock_.now() + 10min;
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  const std::optional<OutboxRow> stored = this->outbox_row(message.message_id);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->state.scheduled_for, message.scheduled_for);
  EXPECT_TRUE(this->batch().empty());
  this->clock_.advance(10min - 1s);
  EXPECT_TRUE(this->batch().empty());
  this->clock_.advance(1s);
  std::vector<WorkItem> due = this->batch();
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].message_id, message.message_id);
}

TYPED_TEST(WorkStoreContractTests, Scenario64_PublishedCompletion_DeletesTheRow) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  WorkBatchRequest request;
  request.completions.push_back({WorkSource::Outbox, message.message_id, MessageStatus::Published});
  EXPECT_TRUE(this->batch(request).empty());
  EXPECT_FALSE(this->outbox_row(message.message_id).has_value());
}

TYPED_TEST(WorkStoreContractTests, Scenario64_PublishedCompletionInDebugMode_KeepsTheRowProcessed) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  WorkBatchRequest request;
  request.debug_mode = true;
  request.completions.push_back({WorkSource::Outbox, message.message_id, MessageStatus::Published});
  EXPECT_TRUE(this->batch(request).empty());
  std::optional<OutboxRow> row = this->outbox_row(message.message_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(has_status(row->state.status, MessageStatus::Published));
  EXPECT_TRUE(row->state.processed_at.has_value());
  EXPECT_TRUE(row->state.published_at.has_value());
}

TYPED_TEST(WorkStoreContractTests, Scenario64_StatusZeroCompletion_OnlyReleasesTheLease) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  const WorkCompletion release{WorkSource::Outbox, message.message_id, MessageStatus::None};
  ASSERT_TRUE(this->store_->complete_work({&release, 1}, {}).ok());
  std::optional<OutboxRow> row = this->outbox_row(message.message_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_FALSE(row->state.instance_id.has_value());
  EXPECT_FALSE(row->state.processed_at.has_value());
  EXPECT_EQ(row->state.status, MessageStatus::Stored);
  EXPECT_EQ(this->batch().size(), 1u);  // claimable again at once
}

TYPED_TEST(WorkStoreContractTests, Scenario65_Failure_SetsFailedAttemptsAndBackoffCappedAt300s) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  const std::chrono::seconds expected[] = {60s, 120s, 240s, 300s, 300s};
  for (int attempt = 0; attempt < 5; ++attempt) {
    const WorkFailure failure{WorkSource::Outbox, message.message_id, MessageStatus::None,
                              "broker down", FailureReason::TransportException};
    ASSERT_TRUE(this->store_->complete_work({}, {&failure, 1}).ok());
    std::optional<OutboxRow> row = this->outbox_row(message.message_id);
    ASSERT_TRUE(row.has_value());
    EXPECT_TRUE(has_status(row->state.status, MessageStatus::Failed));
    EXPECT_EQ(row->state.attempts, attempt + 1);
    EXPECT_EQ(row->state.error, "broker down");
    EXPECT_EQ(row->state.failure_reason, FailureReason::TransportException);
    EXPECT_EQ(row->state.scheduled_for, this->clock_.now() + expected[attempt]) << attempt;
    // Failure n (1-based) waits the store's Backoff before retry n: the schedule the SQL is
    // built from and the memory store computes are the one kStoreRetryBackoff.
    EXPECT_EQ(row->state.scheduled_for, this->clock_.now() + kStoreRetryBackoff.delay(attempt + 1))
        << "failure " << attempt + 1;
    EXPECT_TRUE(this->batch().empty()) << "not re-offered before its backoff";
    this->clock_.advance(expected[attempt]);
    std::vector<WorkItem> retried = this->batch();
    ASSERT_EQ(retried.size(), 1u) << "re-offered once the backoff passed";
    EXPECT_EQ(retried[0].attempts, attempt + 1);
  }
}

TYPED_TEST(WorkStoreContractTests, Scenario66_EventRowsOfOneStream_VersionsFollowEventIdOrder) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId id1 = MessageId::mint();
  const MessageId id2 = MessageId::mint();
  const MessageId id3 = MessageId::mint();
  // Stored out of id order in one call (equal created_at): versions still follow event ids.
  const OutboxMessage batch1[] = {outbox_message(OrderCreated{"c", 3}, "orders", stream, id3),
                                  outbox_message(OrderCreated{"a", 1}, "orders", stream, id1),
                                  outbox_message(OrderCreated{"b", 2}, "orders", stream, id2)};
  WorkBatchRequest request;
  request.new_outbox.assign(std::begin(batch1), std::end(batch1));
  std::vector<WorkItem> items = this->batch(request);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_TRUE(items[0].is_newly_stored);
  // A later event continues from the stream's current version; a duplicate is ignored.
  const MessageId id4 = MessageId::mint();
  const OutboxMessage batch2[] = {outbox_message(OrderCreated{"d", 4}, "orders", stream, id4),
                                  batch1[2]};
  request.new_outbox.assign(std::begin(batch2), std::end(batch2));
  this->batch(request);

  auto events = this->store_->read_stream(stream);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 4u);
  const MessageId in_order[] = {id1, id2, id3, id4};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ((*events)[i].event_id, in_order[i]) << i;
    EXPECT_EQ((*events)[i].version, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ((*events)[i].stream_id, stream);
    EXPECT_EQ((*events)[i].event_type, "store_test::OrderCreated");
  }
  EXPECT_NE((*events)[0].event_data.find("\"order_id\":\"a\""), std::string::npos);
  EXPECT_NE((*events)[0].metadata.find("\"MessageId\":\"" + id1.to_string()), std::string::npos);
  EXPECT_EQ(this->deduplicated("store_test::OrderCreated"), 1);
}

TYPED_TEST(WorkStoreContractTests, EventStoreOnlyRow_IsAppendedAndHandedOutWithoutDestination) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage message = outbox_message(AuditEvent{"order processed"}, std::nullopt, stream);
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  std::vector<WorkItem> items = this->batch();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_FALSE(items[0].destination.has_value());
  EXPECT_TRUE(has_status(items[0].status, MessageStatus::EventStored));
  auto events = this->store_->read_stream(stream);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event_id, message.message_id);
}

// The claim that appends an event marks its row stored (in the row, not only in the item it
// returns): a re-claim after a lapsed lease finds the mark and appends nothing again.
TYPED_TEST(WorkStoreContractTests, ClaimedEventRow_IsMarkedStoredInTheStore) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders", stream);
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  ASSERT_EQ(this->batch().size(), 1u);
  std::optional<OutboxRow> row = this->outbox_row(message.message_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(has_status(row->state.status, MessageStatus::EventStored));

  this->clock_.advance(this->options_.lease_duration + std::chrono::seconds(1));
  std::vector<WorkItem> again = this->batch();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_TRUE(again[0].is_orphaned);
  EXPECT_TRUE(has_status(again[0].status, MessageStatus::EventStored));
  auto events = this->store_->read_stream(stream);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_EQ(events->size(), 1u);
}

TYPED_TEST(WorkStoreContractTests,
           PerspectiveAssociation_CreatesOnePerspectiveEventPerStoredEvent) {
  ASSERT_TRUE(
      this->store_->add_perspective_association("store_test::OrderCreated", "OrderSummary").ok());
  ASSERT_TRUE(
      this->store_->add_perspective_association("store_test::OrderCreated", "Revenue").ok());
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage created = outbox_message(OrderCreated{"o-1", 5}, "orders", stream);
  const OutboxMessage audit = outbox_message(AuditEvent{"x"}, std::nullopt, stream);
  const OutboxMessage both[] = {created, audit};
  WorkBatchRequest request;
  request.new_outbox.assign(std::begin(both), std::end(both));
  this->batch(request);
  this->batch(request);  // re-stored and re-claimed: no second perspective event
  auto rows = whizbang::reader_of(*this->store_)->perspective_events(stream);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  for (const PerspectiveEventRow& row : *rows) EXPECT_EQ(row.event_id, created.message_id);
  EXPECT_EQ((*rows)[0].perspective_name, "OrderSummary");
  EXPECT_EQ((*rows)[1].perspective_name, "Revenue");
}

TYPED_TEST(WorkStoreContractTests, CorruptEventRow_IsQuarantinedAndTheBatchGoesOn) {
  const Uuid stream = MessageId::mint().uuid();
  OutboxMessage corrupt = outbox_message(OrderCreated{"bad", 1}, "orders", stream);
  corrupt.envelope_json = "{\"v\":1,\"id\":";
  const OutboxMessage good = outbox_message(OrderCreated{"good", 2}, "orders", stream);
  const OutboxMessage both[] = {corrupt, good};
  ASSERT_TRUE(this->store_->store_outbox_messages(both).ok());
  std::vector<WorkItem> items = this->batch();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].message_id, good.message_id);
  std::optional<OutboxRow> row = this->outbox_row(corrupt.message_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(has_status(row->state.status, MessageStatus::Failed));
  EXPECT_EQ(row->state.failure_reason, FailureReason::SerializationError);
  EXPECT_NE(row->state.error.find("malformed"), std::string::npos) << row->state.error;
  this->clock_.advance(1h);
  EXPECT_EQ(this->batch().size(), 1u) << "a quarantined row is never offered again";
}

TYPED_TEST(WorkStoreContractTests, PublishedRowReEmitted_IsStillACountedNoOp) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  const WorkCompletion published{WorkSource::Outbox, message.message_id, MessageStatus::Published};
  ASSERT_TRUE(this->store_->complete_work({&published, 1}, {}).ok());
  auto again = this->store_->store_outbox_messages({&message, 1});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE((*again)[0].was_newly_created);
  EXPECT_TRUE(this->batch().empty());
  EXPECT_EQ(this->deduplicated("store_test::OrderCreated"), 1);
}

TYPED_TEST(WorkStoreContractTests, Transaction_RollbackDiscardsEveryJoinedWrite) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  {
    Transaction tx(*this->store_);
    ASSERT_TRUE(tx.status().ok());
    EXPECT_TRUE(this->store_->in_transaction());
    ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
    EXPECT_TRUE(this->outbox_row(message.message_id).has_value()) << "visible inside";
  }  // destroyed without commit
  EXPECT_FALSE(this->store_->in_transaction());
  EXPECT_FALSE(this->outbox_row(message.message_id).has_value());
}

TYPED_TEST(WorkStoreContractTests, Transaction_CommitKeepsOutboxInboxCompletionAndRecordsTogether) {
  const InboxMessage inbound = inbox_message(outbox_message(OrderCreated{"in", 1}, "orders"));
  ASSERT_TRUE(this->store_->store_inbox_messages({&inbound, 1}, MessageId::mint().uuid()).ok());
  const OutboxMessage emitted = outbox_message(OrderCreated{"out", 2}, "orders");
  const ReceptorInvocationRecord record{
      "shop::Receptor", Stage::PostInboxInline, this->clock_.now(), 15us, "orders", ""};
  Transaction tx(*this->store_);
  ASSERT_TRUE(this->store_->store_outbox_messages({&emitted, 1}).ok());
  const WorkCompletion done{WorkSource::Inbox, inbound.message_id, MessageStatus::EventStored};
  ASSERT_TRUE(this->store_->complete_work({&done, 1}, {}).ok());
  ASSERT_TRUE(this->store_->record_receptor_invocations(inbound.message_id, {&record, 1}).ok());
  ASSERT_TRUE(tx.commit().ok());
  EXPECT_TRUE(this->outbox_row(emitted.message_id).has_value());
  EXPECT_FALSE(whizbang::reader_of(*this->store_)->find_inbox_row(inbound.message_id)->has_value());
  auto records = this->store_->find_receptor_invocations(inbound.message_id, "shop::Receptor");
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1u);
  EXPECT_EQ((*records)[0], record);
}

TYPED_TEST(WorkStoreContractTests, Transaction_NestedRollbackDoomsTheOuterCommit) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->begin().ok());
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  ASSERT_TRUE(this->store_->begin().ok());  // joins
  ASSERT_TRUE(this->store_->rollback().ok());
  EXPECT_EQ(this->store_->commit().code(), absl::StatusCode::kAborted);
  EXPECT_FALSE(this->outbox_row(message.message_id).has_value());
}

TYPED_TEST(WorkStoreContractTests, Transaction_OtherThreadsWaitUntilCommit) {
  const OutboxMessage mine = outbox_message(OrderCreated{"mine", 1}, "orders");
  const OutboxMessage theirs = outbox_message(OrderCreated{"theirs", 2}, "orders");
  ASSERT_TRUE(this->store_->begin().ok());
  ASSERT_TRUE(this->store_->store_outbox_messages({&mine, 1}).ok());
  std::atomic<bool> stored{false};
  std::thread other([&] {
    EXPECT_FALSE(this->store_->in_transaction());
    EXPECT_TRUE(this->store_->store_outbox_messages({&theirs, 1}).ok());
    stored = true;
  });
  // The store counts a caller that found the transaction taken before it blocks: once counted,
  // the other thread is queued behind this transaction.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (this->metrics_->counter(metric_names::kWorkCoordinatorMeter,
                                 metric_names::kTransactionWaits) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(
      this->metrics_->counter(metric_names::kWorkCoordinatorMeter, metric_names::kTransactionWaits),
      1);
  EXPECT_FALSE(stored.load()) << "the other thread must wait for this transaction";
  EXPECT_EQ(this->store_->commit().code(), absl::StatusCode::kOk);
  other.join();
  EXPECT_TRUE(stored.load());
  EXPECT_TRUE(this->outbox_row(mine.message_id).has_value());
  EXPECT_TRUE(this->outbox_row(theirs.message_id).has_value());
}

TYPED_TEST(WorkStoreContractTests, CommitListener_IsToldWhatTheCommitWrote) {
  std::vector<CommitInfo> seen;
  const int id = this->store_->add_commit_listener([&](const CommitInfo& info) {
    EXPECT_FALSE(this->store_->in_transaction());
    seen.push_back(info);
  });
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  const InboxMessage inbound = inbox_message(message);
  ASSERT_TRUE(this->store_->store_inbox_messages({&inbound, 1}, MessageId::mint().uuid()).ok());
  {
    Transaction rolled_back(*this->store_);
    ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  }
  this->store_->remove_commit_listener(id);
  ASSERT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0].outbox_written);
  EXPECT_TRUE(seen[1].inbox_written);
}

TYPED_TEST(WorkStoreContractTests,
           ReceptorInvocations_KeyedByServiceCaseInsensitivelyAndPerspective) {
  const MessageId message = MessageId::mint();
  const TimePoint t0 = this->clock_.now();
  const ReceptorInvocationRecord records[] = {
      {"shop::Mailer", Stage::PostInboxDetached, t0, 10us, "orders", ""},
      {"shop::Mailer", Stage::PostInboxDetached, t0 + 1us, 10us, "ORDERS", ""},  // same key
      {"shop::Mailer", Stage::PostInboxDetached, t0 + 2us, 10us, "billing", ""},
      {"shop::Mailer", Stage::PostPerspectiveInline, t0 + 3us, 10us, "orders", "Summary"},
      {"shop::Other", Stage::PostInboxDetached, t0 + 4us, 10us, "orders", ""}};
  ASSERT_TRUE(this->store_->record_receptor_invocations(message, records).ok());
  auto found = this->store_->find_receptor_invocations(message, "shop::Mailer");
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_EQ(found->size(), 3u);
  EXPECT_EQ((*found)[0].service_name, "orders");
  EXPECT_EQ((*found)[1].service_name, "billing");
  EXPECT_EQ((*found)[2].perspective, "Summary");
  EXPECT_TRUE(this->store_->find_receptor_invocations(MessageId::mint(), "shop::Mailer")->empty());
}

}  // namespace
}  // namespace store_test
