// The failure part of the WorkStore contract, run against every backend: max attempts and dead
// letters (kept, listed, requeued, counted), stream-ordered claims, lease renewal, event-store-only
// claims for a host without a transport, and the retention purge.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store_backends.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class FailureContractTests : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.instance = instance("orders");
    options_.now = clock_.fn();
    options_.metrics = metrics_;
    options_.logger = log_.logger;
    options_.max_attempts = 3;
    store_ = Backend::open(options_, dir_);
    ASSERT_NE(store_, nullptr);
  }

  std::vector<WorkItem> batch(WorkBatchRequest request = {}) {
    absl::StatusOr<std::vector<WorkItem>> items = store_->process_work_batch(request);
    EXPECT_TRUE(items.ok()) << items.status();
    return items.ok() ? *items : std::vector<WorkItem>{};
  }
  std::vector<MessageId> ids(const std::vector<WorkItem>& items) {
    std::vector<MessageId> out;
    for (const WorkItem& item : items) out.push_back(item.message_id);
    return out;
  }
  void store(const std::vector<OutboxMessage>& messages) {
    ASSERT_TRUE(store_->store_outbox_messages(messages).ok());
  }
  void fail(const MessageId& id, std::string error = "boom", bool dead_letter = false,
            WorkSource source = WorkSource::Outbox,
            std::optional<RetryDecision> retry = std::nullopt) {
    const WorkFailure failure{
        source,      id,   MessageStatus::None, std::move(error), FailureReason::TransportException,
        dead_letter, retry};
    ASSERT_TRUE(store_->complete_work({}, {&failure, 1}).ok());
  }
  std::vector<DeadLetter> dead_letters() {
    auto letters = store_->dead_letters(100);
    EXPECT_TRUE(letters.ok()) << letters.status();
    return letters.ok() ? *letters : std::vector<DeadLetter>{};
  }
  std::int64_t counter(std::string_view name, std::string_view type) {
    return metrics_->counter(metric_names::kWorkCoordinatorMeter, name,
                             {{metric_names::kMessageTypeTag, type}});
  }

  TempDir dir_;
  ManualClock clock_;
  CapturedLogger log_;
  std::shared_ptr<InMemoryMetrics> metrics_ = std::make_shared<InMemoryMetrics>();
  StoreOptions options_;
  std::unique_ptr<WorkStore> store_;
};

TYPED_TEST_SUITE(FailureContractTests, Backends, BackendNames);

TYPED_TEST(FailureContractTests, FailureAtMaxAttempts_DeadLettersTheRowWithItsLastError) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  this->store({message});
  for (int attempt = 1; attempt <= 3; ++attempt) {
    ASSERT_EQ(this->batch().size(), 1u) << "attempt " << attempt;
    this->fail(message.message_id, "broker down #" + std::to_string(attempt));
    this->clock_.advance(10min);  // past any backoff
  }
  EXPECT_TRUE(this->batch().empty()) << "a dead letter is never offered again";
  std::optional<OutboxRow> row =
      *whizbang::reader_of(*this->store_)->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.has_value()) << "a dead letter is kept, never deleted";
  EXPECT_TRUE(row->state.dead_lettered_at.has_value());
  EXPECT_EQ(row->state.attempts, 3);
  EXPECT_EQ(row->state.error, "broker down #3");
  EXPECT_EQ(row->state.failure_reason, FailureReason::MaxAttemptsExceeded);
  EXPECT_FALSE(row->state.scheduled_for.has_value());
}

TYPED_TEST(FailureContractTests, FailuresBeforeMaxAttempts_AreRetriedWithBackoff) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  this->store({message});
  ASSERT_EQ(this->batch().size(), 1u);
  this->fail(message.message_id);
  EXPECT_TRUE(this->batch().empty()) << "waits for its backoff (60 s)";
  this->clock_.advance(61s);
  EXPECT_EQ(this->batch().size(), 1u);
  EXPECT_TRUE(this->dead_letters().empty());
}

// A retry policy's decision (docs/guide/11-failures.md, "Retry policies") replaces the store's
// schedule for that failure: its wait, and its attempts before the dead letters.
TYPED_TEST(FailureContractTests, RetryDecision_WaitZeroIsDueAtOnce_AWaitIsKept) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  this->store({message});
  ASSERT_EQ(this->batch().size(), 1u);
  this->fail(message.message_id, "blip", false, WorkSource::Outbox, RetryDecision{0s, 0});
  ASSERT_EQ(this->batch().size(), 1u) << "an immediate retry is claimable by the next poll";
  this->fail(message.message_id, "blip", false, WorkSource::Outbox, RetryDecision{5s, 0});
  EXPECT_TRUE(this->batch().empty()) << "waits its 5 s, not the store's 60 s";
  this->clock_.advance(4s);
  EXPECT_TRUE(this->batch().empty());
  this->clock_.advance(2s);
  EXPECT_EQ(this->batch().size(), 1u);
}

TYPED_TEST(FailureContractTests, RetryDecision_MaxAttempts_ReplacesTheStoresMax) {
  // The store's max is 3 (SetUp); the decision allows 5.
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  this->store({message});
  for (int attempt = 1; attempt <= 5; ++attempt) {
    ASSERT_EQ(this->batch().size(), 1u) << "attempt " << attempt;
    this->fail(message.message_id, "down", false, WorkSource::Outbox, RetryDecision{0s, 5});
  }
  EXPECT_TRUE(this->batch().empty());
  std::vector<DeadLetter> letters = this->dead_letters();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(letters[0].attempts, 5);
  EXPECT_EQ(letters[0].reason, FailureReason::MaxAttemptsExceeded);
  // And a decision of 1 dead-letters the first failure of an inbox row.
  const InboxMessage received = inbox_message(outbox_message(OrderCreated{"o-2", 1}, "orders"));
  ASSERT_TRUE(this->store_->store_inbox_messages({&received, 1}, MessageId::mint().uuid()).ok());
  ASSERT_EQ(this->batch().size(), 1u);
  this->fail(received.message_id, "down", false, WorkSource::Inbox, RetryDecision{0s, 1});
  EXPECT_EQ(this->dead_letters().size(), 2u);
}

TYPED_TEST(FailureContractTests, DeadLetterNow_SkipsTheRemainingAttempts) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  this->store({message});
  ASSERT_EQ(this->batch().size(), 1u);
  this->fail(message.message_id, "invalid order", /*dead_letter=*/true);
  std::vector<DeadLetter> letters = this->dead_letters();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(letters[0].attempts, 1);
  EXPECT_EQ(letters[0].reason, FailureReason::TransportException) << "its own reason is kept";
  this->clock_.advance(1h);
  EXPECT_TRUE(this->batch().empty());
}

TYPED_TEST(FailureContractTests, Failures_AreCountedAndADeadLetterIsWarnedAbout) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders", stream);
  this->store({message});
  for (int attempt = 0; attempt < 3; ++attempt) {
    ASSERT_EQ(this->batch().size(), 1u);
    this->fail(message.message_id);
    this->clock_.advance(10min);
  }
  EXPECT_EQ(this->counter(metric_names::kWorkFailed, "store_test::OrderCreated"), 3);
  EXPECT_EQ(this->counter(metric_names::kWorkDeadLettered, "store_test::OrderCreated"), 1);
  EXPECT_EQ(this->log_.sink->count(141, spdlog::level::warn), 1);
  bool names_the_stream = false;
  for (const LogLine& line : this->log_.sink->lines()) {
    names_the_stream |=
        line.text.find("later rows of stream " + stream.to_string()) != std::string::npos;
  }
  EXPECT_TRUE(names_the_stream);
}

TYPED_TEST(FailureContractTests, DeadLetters_ListOutboxAndInboxRowsWithTheirTargets) {
  const OutboxMessage outbound = outbox_message(OrderCreated{"o-1", 5}, "orders");
  this->store({outbound});
  ASSERT_EQ(this->batch().size(), 1u);
  this->fail(outbound.message_id, "no route", true);
  const InboxMessage inbound = inbox_message(outbox_message(ShipOrderCommand{"o-2"}, "inbox"));
  ASSERT_TRUE(this->store_->store_inbox_messages({&inbound, 1}, MessageId::mint().uuid()).ok());
  WorkBatchRequest inbox_only;
  inbox_only.claim_outbox = false;
  ASSERT_EQ(this->batch(inbox_only).size(), 1u);
  this->clock_.advance(1s);
  this->fail(inbound.message_id, "card declined", true, WorkSource::Inbox);

  std::vector<DeadLetter> letters = this->dead_letters();
  ASSERT_EQ(letters.size(), 2u);
  EXPECT_EQ(letters[0].source, DeadLetterSource::Outbox);
  EXPECT_EQ(letters[0].id, outbound.message_id);
  EXPECT_EQ(letters[0].target, "orders");
  EXPECT_EQ(letters[0].message_type, "store_test::OrderCreated");
  EXPECT_EQ(letters[0].error, "no route");
  EXPECT_EQ(letters[1].source, DeadLetterSource::Inbox) << "oldest dead letter first";
  EXPECT_EQ(letters[1].target, "store_test::ShipOrderCommandHandler");
  EXPECT_EQ(letters[1].error, "card declined");
}

TYPED_TEST(FailureContractTests, RequeueOne_GivesItAFreshSetOfAttemptsAndLeavesTheOthers) {
  const OutboxMessage first = outbox_message(OrderCreated{"o-1", 5}, "orders");
  const OutboxMessage second = outbox_message(OrderCreated{"o-2", 5}, "orders");
  this->store({first, second});
  ASSERT_EQ(this->batch().size(), 2u);
  this->fail(first.message_id, "x", true);
  this->fail(second.message_id, "y", true);
  const MessageId wanted[] = {first.message_id};
  absl::StatusOr<std::size_t> requeued = this->store_->requeue_dead_letters(wanted);
  ASSERT_TRUE(requeued.ok()) << requeued.status();
  EXPECT_EQ(*requeued, 1u);
  EXPECT_THAT(this->ids(this->batch()), testing::ElementsAre(first.message_id))
      << "due at once, without waiting for a backoff";
  std::optional<OutboxRow> row =
      *whizbang::reader_of(*this->store_)->find_outbox_row(first.message_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->state.attempts, 0);
  EXPECT_EQ(row->state.error, "x") << "the last error stays for the record";
  ASSERT_EQ(this->dead_letters().size(), 1u);
}

TYPED_TEST(FailureContractTests, RequeueAll_RequeuesEveryDeadLetter) {
  const OutboxMessage first = outbox_message(OrderCreated{"o-1", 5}, "orders");
  const OutboxMessage second = outbox_message(OrderCreated{"o-2", 5}, "orders");
  this->store({first, second});
  ASSERT_EQ(this->batch().size(), 2u);
  this->fail(first.message_id, "x", true);
  this->fail(second.message_id, "y", true);
  absl::StatusOr<std::size_t> requeued = this->store_->requeue_dead_letters({});
  ASSERT_TRUE(requeued.ok()) << requeued.status();
  EXPECT_EQ(*requeued, 2u);
  EXPECT_TRUE(this->dead_letters().empty());
  EXPECT_EQ(this->batch().size(), 2u);
}

TYPED_TEST(FailureContractTests, StreamOrder_LaterRowWaitsWhileAnEarlierOneAwaitsItsRetry) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage first = outbox_message(OrderCreated{"o-1", 1}, "orders", stream);
  const OutboxMessage second = outbox_message(OrderCreated{"o-1", 2}, "orders", stream);
  const OutboxMessage elsewhere = outbox_message(OrderCreated{"o-9", 3}, "orders");
  this->store({first, second, elsewhere});
  ASSERT_EQ(this->batch().size(), 3u);
  this->fail(first.message_id);
  // The worker releases the later row of the failed stream (flags None).
  const WorkCompletion release[] = {
      {WorkSource::Outbox, second.message_id, MessageStatus::None},
      {WorkSource::Outbox, elsewhere.message_id, MessageStatus::None}};
  ASSERT_TRUE(this->store_->complete_work(release, {}).ok());
  EXPECT_THAT(this->ids(this->batch()), testing::ElementsAre(elsewhere.message_id))
      << "the second row of the stream waits for the first one's retry";
  this->clock_.advance(61s);
  EXPECT_THAT(this->ids(this->batch()),
              testing::ElementsAre(first.message_id, second.message_id, elsewhere.message_id));
}

TYPED_TEST(FailureContractTests, StreamOrder_InboxRowsWaitForAnEarlierRowOfTheirStream) {
  const Uuid stream = MessageId::mint().uuid();
  const InboxMessage first =
      inbox_message(outbox_message(OrderCreated{"o-1", 1}, "orders", stream));
  const InboxMessage second =
      inbox_message(outbox_message(OrderCreated{"o-1", 2}, "orders", stream));
  const InboxMessage both[] = {first, second};
  ASSERT_TRUE(this->store_->store_inbox_messages(both, MessageId::mint().uuid()).ok());
  WorkBatchRequest inbox_only;
  inbox_only.claim_outbox = false;
  ASSERT_EQ(this->batch(inbox_only).size(), 2u);
  this->fail(first.message_id, "boom", false, WorkSource::Inbox);
  const WorkCompletion release{WorkSource::Inbox, second.message_id, MessageStatus::None};
  ASSERT_TRUE(this->store_->complete_work({&release, 1}, {}).ok());
  EXPECT_TRUE(this->batch(inbox_only).empty());
  this->clock_.advance(61s);
  EXPECT_THAT(this->ids(this->batch(inbox_only)),
              testing::ElementsAre(first.message_id, second.message_id));
}

TYPED_TEST(FailureContractTests, StreamOrder_ADeadLetterDoesNotHoldItsStreamBack) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage first = outbox_message(OrderCreated{"o-1", 1}, "orders", stream);
  const OutboxMessage second = outbox_message(OrderCreated{"o-1", 2}, "orders", stream);
  this->store({first, second});
  ASSERT_EQ(this->batch().size(), 2u);
  this->fail(first.message_id, "poison", true);
  const WorkCompletion release{WorkSource::Outbox, second.message_id, MessageStatus::None};
  ASSERT_TRUE(this->store_->complete_work({&release, 1}, {}).ok());
  EXPECT_THAT(this->ids(this->batch()), testing::ElementsAre(second.message_id));
}

TYPED_TEST(FailureContractTests, StreamOrder_ScheduledEarlierRowHoldsItsStreamUntilDue) {
  const Uuid stream = MessageId::mint().uuid();
  OutboxMessage first = outbox_message(OrderCreated{"o-1", 1}, "orders", stream);
  first.scheduled_for = this->clock_.now() + 5min;
  const OutboxMessage second = outbox_message(OrderCreated{"o-1", 2}, "orders", stream);
  this->store({first, second});
  EXPECT_TRUE(this->batch().empty());
  this->clock_.advance(6min);
  EXPECT_THAT(this->ids(this->batch()), testing::ElementsAre(first.message_id, second.message_id));
}

TYPED_TEST(FailureContractTests, RenewLeases_ExtendsTheLeasesStillHeld) {
  const OutboxMessage message = outbox_message(OrderCreated{"o-1", 5}, "orders");
  this->store({message});
  std::vector<WorkItem> items = this->batch();
  ASSERT_EQ(items.size(), 1u);
  this->clock_.advance(200s);
  const WorkLease lease{WorkSource::Outbox, message.message_id};
  absl::StatusOr<std::vector<MessageId>> renewed = this->store_->renew_leases({&lease, 1});
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_THAT(*renewed, testing::ElementsAre(message.message_id));
  std::optional<OutboxRow> row =
      *whizbang::reader_of(*this->store_)->find_outbox_row(message.message_id);
  ASSERT_TRUE(row.has_value() && row->state.lease_expiry.has_value());
  EXPECT_EQ(*row->state.lease_expiry, this->clock_.now() + 300s);
  // A completed row is no longer held.
  const WorkCompletion published{WorkSource::Outbox, message.message_id, MessageStatus::Published};
  ASSERT_TRUE(this->store_->complete_work({&published, 1}, {}).ok());
  renewed = this->store_->renew_leases({&lease, 1});
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(renewed->empty());
}

TYPED_TEST(FailureContractTests, EventStoreOnlyClaim_TakesRowsWithoutADestinationOnly) {
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage transported = outbox_message(OrderCreated{"o-1", 1}, "orders", stream);
  const OutboxMessage stored_only = outbox_message(OrderCreated{"o-1", 2}, std::nullopt, stream);
  this->store({transported, stored_only});
  WorkBatchRequest request;
  request.event_store_outbox_only = true;
  EXPECT_THAT(this->ids(this->batch(request)), testing::ElementsAre(stored_only.message_id))
      << "a row for the transport neither goes out nor holds the stream back";
  auto events = this->store_->read_stream(stream);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event_id, stored_only.message_id);
}

TYPED_TEST(FailureContractTests, Purge_RemovesBookkeepingPastItsRetentionOnly) {
  const OutboxMessage old_row = outbox_message(OrderCreated{"o-1", 5}, "orders");
  const InboxMessage old_inbox = inbox_message(old_row);
  this->store({old_row});
  const WorkCompletion published{WorkSource::Outbox, old_row.message_id, MessageStatus::Published};
  ASSERT_TRUE(this->store_->complete_work({&published, 1}, {}).ok());
  ASSERT_TRUE(this->store_->store_inbox_messages({&old_inbox, 1}, MessageId::mint().uuid()).ok());
  ReceptorInvocationRecord record;
  record.receptor_id = "shop::Mailer";
  record.service_name = "orders";
  record.completed_at = this->clock_.now();
  ASSERT_TRUE(this->store_->record_receptor_invocations(old_row.message_id, {&record, 1}).ok());

  this->clock_.advance(8 * 24h);
  const OutboxMessage recent = outbox_message(OrderCreated{"o-2", 5}, "orders");
  this->store({recent});
  const WorkCompletion recent_published{WorkSource::Outbox, recent.message_id,
                                        MessageStatus::Published};
  ASSERT_TRUE(this->store_->complete_work({&recent_published, 1}, {}).ok());

  absl::StatusOr<PurgeCounts> purged = this->store_->purge(RetentionOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->outbox_tombstones, 1);
  EXPECT_EQ(purged->inbox_deduplication, 1);
  EXPECT_EQ(purged->receptor_invocations, 1);
  EXPECT_EQ(this->log_.sink->count(143, spdlog::level::info), 1);
  // Past retention a duplicate is no longer recognised: the old id is stored again.
  auto again = this->store_->store_outbox_messages({&old_row, 1});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*again)[0].was_newly_created);
  // Within retention it still is.
  auto recent_again = this->store_->store_outbox_messages({&recent, 1});
  ASSERT_TRUE(recent_again.ok());
  EXPECT_FALSE((*recent_again)[0].was_newly_created);
}

// An outbox id's age counts from when it was stored, not from its publication; and however old,
// it is kept while its row waits.
TYPED_TEST(FailureContractTests, Purge_KeepsAnOutboxIdWhileItsRowWaitsThenByTheIdsAge) {
  const OutboxMessage late = outbox_message(OrderCreated{"o-late", 5}, "orders");
  this->store({late});
  this->clock_.advance(8 * 24h);  // past retention, still waiting (the broker was down)

  absl::StatusOr<PurgeCounts> waiting = this->store_->purge(RetentionOptions{});
  ASSERT_TRUE(waiting.ok()) << waiting.status();
  EXPECT_EQ(waiting->outbox_tombstones, 0) << "a waiting row's id is never purged";
  auto again = this->store_->store_outbox_messages({&late, 1});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE((*again)[0].was_newly_created);

  const WorkCompletion published{WorkSource::Outbox, late.message_id, MessageStatus::Published};
  ASSERT_TRUE(this->store_->complete_work({&published, 1}, {}).ok());
  absl::StatusOr<PurgeCounts> purged = this->store_->purge(RetentionOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->outbox_tombstones, 1) << "published just now, but stored 8 days ago";
  auto after = this->store_->store_outbox_messages({&late, 1});
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE((*after)[0].was_newly_created);
}

TYPED_TEST(FailureContractTests, DetachedWork_IsKeptUntilTheRunHoldingItsLeaseCompletesIt) {
  DetachedWork work;
  work.work_id = MessageId::mint();
  work.message_id = MessageId::mint();
  work.message_type = "store_test::OrderCreated";
  work.receptor_id = "shop::Auditor";
  work.stage = Stage::PostInboxDetached;
  work.envelope_json = "{}";
  ASSERT_TRUE(this->store_->store_detached_work(work).ok());
  EXPECT_TRUE(this->store_->claim_detached_work(10)->empty())
      << "leased to this instance: on its way through its executor";
  this->clock_.advance(301s);  // its process died: the lease lapses
  auto claimed = this->store_->claim_detached_work(10);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].receptor_id, "shop::Auditor");
  EXPECT_EQ((*claimed)[0].message_type, "store_test::OrderCreated");
  EXPECT_EQ((*claimed)[0].stage, Stage::PostInboxDetached);
  EXPECT_EQ(*this->store_->complete_detached_work(work.work_id), true);
  EXPECT_EQ(*this->store_->complete_detached_work(work.work_id), false) << "it ran once";
}

TYPED_TEST(FailureContractTests, FailedDetachedWork_WaitsForItsRetryAndNoStaleRunTakesIt) {
  DetachedWork work;
  work.work_id = MessageId::mint();
  work.message_id = MessageId::mint();
  work.message_type = "store_test::OrderCreated";
  work.receptor_id = "shop::Auditor";
  work.envelope_json = "{}";
  ASSERT_TRUE(this->store_->store_detached_work(work).ok());
  ASSERT_TRUE(this->store_->fail_detached_work(work.work_id, "smtp down", false).ok());
  EXPECT_FALSE(*this->store_->complete_detached_work(work.work_id))
      << "unleased, waiting for its retry: a run that claimed it before the failure is stale";
  EXPECT_TRUE(this->store_->claim_detached_work(10)->empty()) << "waits for its backoff";
  this->clock_.advance(61s);
  ASSERT_EQ(this->store_->claim_detached_work(10)->size(), 1u);
  EXPECT_TRUE(*this->store_->complete_detached_work(work.work_id));
}

TYPED_TEST(FailureContractTests, FailedDetachedWorkWithRetryDecision_ItsWaitAndItsMax) {
  DetachedWork work;
  work.work_id = MessageId::mint();
  work.message_id = MessageId::mint();
  work.message_type = "store_test::OrderCreated";
  work.receptor_id = "shop::Auditor";
  work.envelope_json = "{}";
  ASSERT_TRUE(this->store_->store_detached_work(work).ok());
  ASSERT_TRUE(
      this->store_->fail_detached_work(work.work_id, "blip", false, RetryDecision{0s, 5}).ok());
  ASSERT_EQ(this->store_->claim_detached_work(10)->size(), 1u) << "due at once";
  ASSERT_TRUE(
      this->store_->fail_detached_work(work.work_id, "down", false, RetryDecision{7s, 5}).ok());
  this->clock_.advance(6s);
  EXPECT_TRUE(this->store_->claim_detached_work(10)->empty()) << "waits its 7 s";
  this->clock_.advance(1s);
  ASSERT_EQ(this->store_->claim_detached_work(10)->size(), 1u);
  // Attempts 3, 4 and 5: the decision's max is 5 (the store's is 3, SetUp).
  for (int attempt = 3; attempt <= 5; ++attempt) {
    ASSERT_TRUE(
        this->store_->fail_detached_work(work.work_id, "down", false, RetryDecision{0s, 5}).ok());
    if (attempt < 5) {
      ASSERT_EQ(this->store_->claim_detached_work(10)->size(), 1u) << attempt;
    }
  }
  EXPECT_TRUE(this->store_->claim_detached_work(10)->empty());
  std::vector<DeadLetter> letters = this->dead_letters();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(letters[0].source, DeadLetterSource::DetachedWork);
  EXPECT_EQ(letters[0].attempts, 5);
  EXPECT_EQ(letters[0].reason, FailureReason::MaxAttemptsExceeded);
}

}  // namespace
}  // namespace store_test
