// The perspective part of the WorkStore contract, run against memory and SQLite: models per
// (perspective, stream), claiming perspective events, completion with the WhenAll check, failure
// backoff.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store_backends.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class PerspectiveStoreContractTests : public BackendStoreTest<Backend> {
 protected:
  void SetUp() override {
    BackendStoreTest<Backend>::SetUp();
    if (this->HasFatalFailure()) return;
    ASSERT_TRUE(this->store_->add_perspective_association("store_test::OrderCreated", "A").ok());
    ASSERT_TRUE(this->store_->add_perspective_association("store_test::OrderCreated", "B").ok());
  }

  // Stores an OrderCreated event on `stream` through a work batch (event store + perspective
  // events), completing the outbox row.
  MessageId store_event(const Uuid& stream, std::string order_id,
                        MessageId id = MessageId::mint()) {
    WorkBatchRequest request;
    request.new_outbox.push_back(
        outbox_message(OrderCreated{std::move(order_id), 1}, std::nullopt, stream, id));
    auto items = this->store_->process_work_batch(request);
    EXPECT_TRUE(items.ok()) << items.status();
    return id;
  }
  std::vector<PerspectiveWork> claim(std::size_t max = 100) {
    auto work = this->store_->claim_perspective_work(max);
    EXPECT_TRUE(work.ok()) << work.status();
    return work.ok() ? *work : std::vector<PerspectiveWork>{};
  }
  std::vector<MessageId> complete(std::vector<MessageId> ids) {
    auto done = this->store_->complete_perspective_work(ids);
    EXPECT_TRUE(done.ok()) << done.status();
    return done.ok() ? done->events_completed : std::vector<MessageId>{};
  }
};

TYPED_TEST_SUITE(PerspectiveStoreContractTests, Backends, BackendNames);

TYPED_TEST(PerspectiveStoreContractTests, Model_AbsentUntilSaved_ThenUpsertedPerStream) {
  const Uuid stream = MessageId::mint().uuid();
  const Uuid other = MessageId::mint().uuid();
  auto missing = this->store_->load_perspective_model("A", stream);
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_FALSE(missing->has_value());

  const MessageId first = MessageId::mint();
  const MessageId second = MessageId::mint();
  ASSERT_TRUE(this->store_->save_perspective_model("A", stream, R"({"n":1})", first).ok());
  ASSERT_TRUE(this->store_->save_perspective_model("A", stream, R"({"n":2})", second).ok());
  ASSERT_TRUE(this->store_->save_perspective_model("B", stream, R"({"b":true})", first).ok());

  auto a = this->store_->load_perspective_model("A", stream);
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->model_json, R"({"n":2})");
  EXPECT_EQ((*a)->last_event_id, second);
  EXPECT_EQ((*a)->updated_at, this->clock_.now());
  auto b = this->store_->load_perspective_model("B", stream);
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->model_json, R"({"b":true})");
  auto elsewhere = this->store_->load_perspective_model("A", other);
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_FALSE(elsewhere->has_value());
}

TYPED_TEST(PerspectiveStoreContractTests, Model_SaveRolledBackWithItsTransaction) {
  const Uuid stream = MessageId::mint().uuid();
  {
    Transaction tx(*this->store_);
    ASSERT_TRUE(this->store_->save_perspective_model("A", stream, "{}", MessageId::mint()).ok());
  }  // rolled back
  auto model = this->store_->load_perspective_model("A", stream);
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(model->has_value());
}

TYPED_TEST(PerspectiveStoreContractTests, Claim_ReturnsEachPerspectiveEventWithItsEvent) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId first = this->store_event(stream, "o-1");
  const MessageId second = this->store_event(stream, "o-2");
  const std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 4u);
  // Stream order (event id), then perspective name.
  EXPECT_EQ(work[0].event_id, first);
  EXPECT_EQ(work[0].perspective_name, "A");
  EXPECT_EQ(work[1].event_id, first);
  EXPECT_EQ(work[1].perspective_name, "B");
  EXPECT_EQ(work[2].event_id, second);
  EXPECT_EQ(work[0].stream_id, stream);
  EXPECT_EQ(work[0].event_type, "store_test::OrderCreated");
  EXPECT_EQ(work[0].event_data, R"({"order_id":"o-1","amount":1})");
  EXPECT_NE(work[0].metadata.find("\"Hops\""), std::string::npos);
  EXPECT_EQ(work[0].version, 1);
  EXPECT_EQ(work[2].version, 2);
  EXPECT_EQ(this->claim(1).size(), 1u) << "this instance's own leases are offered again";
}

TYPED_TEST(PerspectiveStoreContractTests,
           CompletingTheLastPerspectiveEvent_OwesALifecycleCompletionUntilItIsCompleted) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId event = this->store_event(stream, "o-1");
  const std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  EXPECT_TRUE(this->complete({work[0].event_work_id}).empty());
  auto none = this->store_->claim_lifecycle_work(10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty()) << "the gate is still shut";
  EXPECT_THAT(this->complete({work[1].event_work_id}), testing::ElementsAre(event));
  // Owed until completed: a process that dies here finds it again.
  for (int cycle = 0; cycle < 2; ++cycle) {
    auto owed = this->store_->claim_lifecycle_work(10);
    ASSERT_TRUE(owed.ok()) << owed.status();
    ASSERT_EQ(owed->size(), 1u);
    EXPECT_EQ((*owed)[0].event_id, event);
    EXPECT_EQ((*owed)[0].stream_id, stream);
    EXPECT_EQ((*owed)[0].event_type, "store_test::OrderCreated");
    EXPECT_EQ((*owed)[0].event_data, R"({"order_id":"o-1","amount":1})");
  }
  ASSERT_TRUE(this->store_->complete_lifecycle_work(event).ok());
  auto done = this->store_->claim_lifecycle_work(10);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->empty());
}

TYPED_TEST(PerspectiveStoreContractTests, FailedLifecycleCompletion_IsRetriedThenDeadLettered) {
  const MessageId event = this->store_event(MessageId::mint().uuid(), "o-1");
  const std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  ASSERT_EQ(this->complete({work[0].event_work_id, work[1].event_work_id}).size(), 1u);
  ASSERT_TRUE(this->store_->fail_lifecycle_work(event, "mailer down", false).ok());
  EXPECT_TRUE(this->store_->claim_lifecycle_work(10)->empty()) << "waits for its backoff";
  // The default max_attempts (10): nine more failures dead-letter it.
  for (int attempt = 2; attempt <= 10; ++attempt) {
    this->clock_.advance(10min);
    ASSERT_EQ(this->store_->claim_lifecycle_work(10)->size(), 1u) << "attempt " << attempt;
    ASSERT_TRUE(this->store_->fail_lifecycle_work(event, "mailer still down", false).ok());
  }
  this->clock_.advance(1h);
  EXPECT_TRUE(this->store_->claim_lifecycle_work(10)->empty()) << "dead-lettered";
  auto letters = this->store_->dead_letters(10);
  ASSERT_TRUE(letters.ok());
  ASSERT_EQ(letters->size(), 1u);
  EXPECT_EQ((*letters)[0].source, DeadLetterSource::LifecycleCompletion);
  EXPECT_EQ((*letters)[0].id, event);
  EXPECT_EQ((*letters)[0].attempts, 10);
  EXPECT_EQ((*letters)[0].error, "mailer still down");
  EXPECT_EQ((*letters)[0].reason, FailureReason::MaxAttemptsExceeded);
  const MessageId requeue[] = {event};
  ASSERT_EQ(*this->store_->requeue_dead_letters(requeue), 1u);
  EXPECT_EQ(this->store_->claim_lifecycle_work(10)->size(), 1u);
}

// A retry policy's decision (docs/guide/11-failures.md, "Retry policies") replaces the store's
// schedule for a perspective event: its wait (zero: due at once), and its attempts before the
// dead letters. The row's stream waits for it all the same.
TYPED_TEST(PerspectiveStoreContractTests, FailWithRetryDecision_ItsWaitAndItsMaxAttempts) {
  const Uuid stream = MessageId::mint().uuid();
  this->store_event(stream, "o-1");
  const MessageId later = this->store_event(stream, "o-2");
  std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 4u);
  ASSERT_EQ(work[0].perspective_name, "A");
  const MessageId failing = work[0].event_work_id;
  ASSERT_TRUE(
      this->store_->fail_perspective_work(failing, "blip", false, RetryDecision{0s, 3}).ok());
  work = this->claim();
  ASSERT_FALSE(work.empty());
  EXPECT_EQ(work[0].event_work_id, failing) << "an immediate retry is due at once, first";
  ASSERT_TRUE(
      this->store_->fail_perspective_work(failing, "down", false, RetryDecision{7s, 3}).ok());
  auto rows = whizbang::reader_of(*this->store_)->perspective_events(stream);
  ASSERT_TRUE(rows.ok()) << rows.status();
  const auto row = std::find_if(rows->begin(), rows->end(),
                                [&](const auto& r) { return r.event_work_id == failing; });
  ASSERT_NE(row, rows->end());
  EXPECT_EQ(row->attempts, 2);
  ASSERT_TRUE(row->scheduled_for.has_value());
  EXPECT_EQ(*row->scheduled_for, this->clock_.now() + 7s) << "its 7 s, not the store's 60 s";
  for (const PerspectiveWork& item : this->claim()) {
    EXPECT_FALSE(item.perspective_name == "A" && item.event_id == later)
        << "A's later event waits for the retry";
  }
  this->clock_.advance(7s);
  work = this->claim();
  ASSERT_FALSE(work.empty());
  EXPECT_EQ(work[0].event_work_id, failing);
  // Its third attempt is its last (the decision's max 3; the store's is 10).
  ASSERT_TRUE(
      this->store_->fail_perspective_work(failing, "down", false, RetryDecision{7s, 3}).ok());
  auto letters = this->store_->dead_letters(10);
  ASSERT_TRUE(letters.ok());
  ASSERT_EQ(letters->size(), 1u);
  EXPECT_EQ((*letters)[0].source, DeadLetterSource::PerspectiveEvent);
  EXPECT_EQ((*letters)[0].attempts, 3);
  EXPECT_EQ((*letters)[0].reason, FailureReason::MaxAttemptsExceeded);
}

TYPED_TEST(PerspectiveStoreContractTests, FailLifecycleWithRetryDecision_ItsWaitAndItsMax) {
  const MessageId event = this->store_event(MessageId::mint().uuid(), "o-1");
  const std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  ASSERT_EQ(this->complete({work[0].event_work_id, work[1].event_work_id}).size(), 1u);
  ASSERT_EQ(this->store_->claim_lifecycle_work(10)->size(), 1u);
  ASSERT_TRUE(this->store_->fail_lifecycle_work(event, "blip", false, RetryDecision{0s, 3}).ok());
  ASSERT_EQ(this->store_->claim_lifecycle_work(10)->size(), 1u) << "due at once";
  ASSERT_TRUE(this->store_->fail_lifecycle_work(event, "down", false, RetryDecision{7s, 3}).ok());
  EXPECT_TRUE(this->store_->claim_lifecycle_work(10)->empty());
  this->clock_.advance(6s);
  EXPECT_TRUE(this->store_->claim_lifecycle_work(10)->empty()) << "waits its 7 s";
  this->clock_.advance(1s);
  ASSERT_EQ(this->store_->claim_lifecycle_work(10)->size(), 1u);
  ASSERT_TRUE(this->store_->fail_lifecycle_work(event, "down", false, RetryDecision{7s, 3}).ok());
  auto letters = this->store_->dead_letters(10);
  ASSERT_TRUE(letters.ok());
  ASSERT_EQ(letters->size(), 1u);
  EXPECT_EQ((*letters)[0].source, DeadLetterSource::LifecycleCompletion);
  EXPECT_EQ((*letters)[0].attempts, 3);
  EXPECT_EQ((*letters)[0].reason, FailureReason::MaxAttemptsExceeded);
}

TYPED_TEST(PerspectiveStoreContractTests, StreamOrder_AFailedEventHoldsBackItsPerspectiveOnly) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId first = this->store_event(stream, "o-1");
  const MessageId second = this->store_event(stream, "o-2");
  std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 4u);
  ASSERT_EQ(work[0].perspective_name, "A");
  ASSERT_TRUE(this->store_->fail_perspective_work(work[0].event_work_id, "boom", false).ok());
  // A's second event waits for A's first; B goes on with both.
  work = this->claim();
  std::vector<std::pair<std::string, MessageId>> offered;
  for (const PerspectiveWork& item : work)
    offered.emplace_back(item.perspective_name, item.event_id);
  EXPECT_THAT(offered, testing::ElementsAre(testing::Pair("B", first), testing::Pair("B", second)));
  this->clock_.advance(61s);
  EXPECT_EQ(this->claim().size(), 4u);
}

// Ids derived from a handling need not sort in the order their events were appended (an event
// derived from another shares its source's time): the stream's versions are its order.
TYPED_TEST(PerspectiveStoreContractTests, StreamOrder_IsTheOrderOfAppending_NotOfTheEventIds) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId smaller = MessageId::mint();
  const MessageId larger = MessageId::mint();
  ASSERT_LT(smaller, larger);
  const MessageId first = this->store_event(stream, "o-1", larger);
  const MessageId second = this->store_event(stream, "o-2", smaller);
  std::vector<PerspectiveWork> work = this->claim();
  std::vector<std::pair<std::string, MessageId>> offered;
  for (const PerspectiveWork& item : work)
    offered.emplace_back(item.perspective_name, item.event_id);
  EXPECT_THAT(offered,
              testing::ElementsAre(testing::Pair("A", first), testing::Pair("B", first),
                                   testing::Pair("A", second), testing::Pair("B", second)));
  ASSERT_EQ(work.size(), 4u);
  // The first event failing holds its perspective's second back, whatever the ids say.
  ASSERT_TRUE(this->store_->fail_perspective_work(work[0].event_work_id, "boom", false).ok());
  offered.clear();
  for (const PerspectiveWork& item : this->claim())
    offered.emplace_back(item.perspective_name, item.event_id);
  EXPECT_THAT(offered, testing::ElementsAre(testing::Pair("B", first), testing::Pair("B", second)));
  // And a reader lists them in that order.
  auto rows = whizbang::reader_of(*this->store_)->perspective_events(stream);
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::vector<MessageId> listed;
  for (const PerspectiveEventRow& row : *rows) listed.push_back(row.event_id);
  EXPECT_THAT(listed, testing::ElementsAre(first, first, second, second));
}

TYPED_TEST(PerspectiveStoreContractTests, UnknownPerspectiveEvent_IsDeadLetteredAtOnce) {
  const MessageId event = this->store_event(MessageId::mint().uuid(), "o-1");
  std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  ASSERT_TRUE(
      this->store_->fail_perspective_work(work[0].event_work_id, "no perspective A", true).ok());
  this->clock_.advance(1h);
  EXPECT_EQ(this->claim().size(), 1u);
  auto letters = this->store_->dead_letters(10);
  ASSERT_TRUE(letters.ok());
  ASSERT_EQ(letters->size(), 1u);
  EXPECT_EQ((*letters)[0].source, DeadLetterSource::PerspectiveEvent);
  EXPECT_EQ((*letters)[0].target, "A");
  EXPECT_EQ((*letters)[0].message_type, "store_test::OrderCreated");
  (void)event;
}

// Two instances share a file only with SQLite (a memory store is one instance's own).
using SqlitePerspectiveStoreTests = PerspectiveStoreContractTests<SqliteBackend>;

TEST_F(SqlitePerspectiveStoreTests, Claim_LeasedToAnotherInstance_NotOfferedUntilLeaseLapses) {
  const Uuid stream = MessageId::mint().uuid();
  this->store_event(stream, "o-1");
  StoreOptions other_options = this->options_;
  other_options.instance = instance("orders");
  auto other = SqliteBackend::open(other_options, this->dir_);
  auto none = other->claim_perspective_work(10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  this->clock_.advance(301s);
  auto lapsed = other->claim_perspective_work(10);
  ASSERT_TRUE(lapsed.ok());
  EXPECT_EQ(lapsed->size(), 2u);
}

TYPED_TEST(PerspectiveStoreContractTests,
           Complete_ReportsTheEventOnlyWhenItsLastPerspectiveCompletes) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId event = this->store_event(stream, "o-1");
  const std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  EXPECT_TRUE(this->complete({work[0].event_work_id}).empty());
  EXPECT_EQ(this->complete({work[1].event_work_id}), std::vector<MessageId>{event});
  EXPECT_TRUE(this->complete({work[1].event_work_id}).empty()) << "a completed row reports nothing";
  auto rows = whizbang::reader_of(*this->store_)->perspective_events(stream);
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());
  EXPECT_TRUE(this->claim().empty());
}

TYPED_TEST(PerspectiveStoreContractTests, Complete_BothInOneCall_ReportsTheEventOnce) {
  const MessageId event = this->store_event(MessageId::mint().uuid(), "o-1");
  const std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(this->complete({work[0].event_work_id, work[1].event_work_id}),
            std::vector<MessageId>{event});
}

TYPED_TEST(PerspectiveStoreContractTests, Fail_BacksOffThenOffersAgain) {
  const Uuid stream = MessageId::mint().uuid();
  this->store_event(stream, "o-1");
  std::vector<PerspectiveWork> work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  ASSERT_TRUE(this->store_->fail_perspective_work(work[0].event_work_id, "boom", false).ok());
  ASSERT_EQ(this->claim().size(), 1u) << "the failed row waits for its backoff";
  auto rows = whizbang::reader_of(*this->store_)->perspective_events(stream);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  const auto failed = std::find_if(rows->begin(), rows->end(), [&](const auto& row) {
    return row.event_work_id == work[0].event_work_id;
  });
  ASSERT_NE(failed, rows->end());
  EXPECT_EQ(failed->attempts, 1);
  EXPECT_EQ(failed->error, "boom");
  this->clock_.advance(failure_backoff(0) + 1s);
  work = this->claim();
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(work[0].attempts, 1);
}

}  // namespace
}  // namespace store_test
