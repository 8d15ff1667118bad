// DeadLetterOperations (whizbang/store/dead_letter_operations.hpp) on every backend: the
// filtered, paged listing (cursor stable across pages), groups, one dead letter with its
// envelope and invocation records, requeue by key, and discard (kept with its reason, then never
// listed, counted, requeued or claimed).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <set>

#include "store_backends.hpp"
#include "whizbang/store/dead_letter_operations.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class DeadLetterOperationsTests : public BackendStoreTest<Backend> {
 protected:
  // An outbox row for "orders", dead-lettered now with `error`.
  OutboxMessage dead_outbox(std::string error, FailureReason reason = FailureReason::Unknown,
                            std::string destination = "orders") {
    OutboxMessage message = outbox_message(OrderCreated{"o", 1}, destination);
    EXPECT_TRUE(this->store_->store_outbox_messages({&message, 1}).ok());
    fail(WorkSource::Outbox, message.message_id, std::move(error), reason);
    return message;
  }
  InboxMessage dead_inbox(std::string error, FailureReason reason = FailureReason::Unknown) {
    InboxMessage message = inbox_message(outbox_message(OrderCreated{"i", 2}, "orders"));
    EXPECT_TRUE(this->store_->store_inbox_messages({&message, 1}, Uuid()).ok());
    fail(WorkSource::Inbox, message.message_id, std::move(error), reason);
    return message;
  }
  void fail(WorkSource source, const MessageId& id, std::string error, FailureReason reason) {
    const WorkFailure failure{source, id,   MessageStatus::None, std::move(error),
                              reason, true, std::nullopt};
    ASSERT_TRUE(this->store_->complete_work({}, {&failure, 1}).ok());
  }
  std::vector<DeadLetter> list(const DeadLetterFilter& filter) {
    auto page = this->store_->list_dead_letters(filter, kMaxDeadLetterPage, std::nullopt);
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? page->items : std::vector<DeadLetter>{};
  }
  static std::set<MessageId> ids(const std::vector<DeadLetter>& letters) {
    std::set<MessageId> out;
    for (const DeadLetter& letter : letters) out.insert(letter.id);
    return out;
  }
};

TYPED_TEST_SUITE(DeadLetterOperationsTests, Backends, BackendNames);

TYPED_TEST(DeadLetterOperationsTests, EachFilter_SelectsOnlyItsDeadLetters) {
  const TimePoint start = this->clock_.now();
  const auto broker =
      this->dead_outbox("broker down\nat publish()", FailureReason::TransportException);
  this->clock_.advance(1min);
  const auto billing =
      this->dead_outbox("broker down\nat connect()", FailureReason::TransportException, "billing");
  this->clock_.advance(1min);
  const TimePoint middle = this->clock_.now();
  const auto invalid = this->dead_inbox("order has no lines", FailureReason::ValidationError);
  this->clock_.advance(1min);
  const auto locked = this->dead_inbox("database is locked");

  DeadLetterFilter by_source;
  by_source.source = DeadLetterSource::Inbox;
  EXPECT_EQ(this->ids(this->list(by_source)),
            (std::set<MessageId>{invalid.message_id, locked.message_id}));
  DeadLetterFilter by_target;
  by_target.target = "billing";
  EXPECT_EQ(this->ids(this->list(by_target)), std::set<MessageId>{billing.message_id});
  DeadLetterFilter by_type;
  by_type.message_type = "nothing.Like.This";
  EXPECT_TRUE(this->list(by_type).empty());
  by_type.message_type = broker.message_type;
  EXPECT_EQ(this->list(by_type).size(), 4u);
  DeadLetterFilter by_reason;
  by_reason.reason = FailureReason::ValidationError;
  EXPECT_EQ(this->ids(this->list(by_reason)), std::set<MessageId>{invalid.message_id});
  DeadLetterFilter by_error;
  by_error.error_contains = "connect()";
  EXPECT_EQ(this->ids(this->list(by_error)), std::set<MessageId>{billing.message_id});
  DeadLetterFilter by_time;
  by_time.since = middle;
  EXPECT_EQ(this->ids(this->list(by_time)),
            (std::set<MessageId>{invalid.message_id, locked.message_id}));
  by_time.since = start;
  by_time.until = middle - 1s;
  EXPECT_EQ(this->ids(this->list(by_time)),
            (std::set<MessageId>{broker.message_id, billing.message_id}));
  DeadLetterFilter by_line;
  by_line.error_first_line = "broker down";
  EXPECT_EQ(this->list(by_line).size(), 2u);
  by_line.error_first_line = "broker";
  EXPECT_TRUE(this->list(by_line).empty()) << "a first line matches whole, not as a prefix";
}

TYPED_TEST(DeadLetterOperationsTests, Paging_CursorIsStableAcrossPagesAndNewDeadLetters) {
  std::vector<MessageId> expected;
  for (int i = 0; i < 7; ++i) {
    expected.push_back(this->dead_outbox("e" + std::to_string(i)).message_id);
    if (i % 3 == 2) this->clock_.advance(1s);  // several share a time: the id breaks the tie
  }
  const auto everything = this->list({});
  ASSERT_EQ(everything.size(), 7u);
  std::vector<MessageId> paged;
  std::optional<DeadLetterCursor> cursor;
  int pages = 0;
  do {
    auto page = this->store_->list_dead_letters({}, 2, cursor);
    ASSERT_TRUE(page.ok()) << page.status();
    ASSERT_LE(page->items.size(), 2u);
    for (const DeadLetter& letter : page->items) paged.push_back(letter.id);
    cursor = page->next;
    if (++pages == 2) {  // dead-lettered meanwhile: later than every row so far, so it comes last
      this->clock_.advance(1min);
      expected.push_back(this->dead_outbox("late").message_id);
    }
  } while (cursor.has_value() && pages < 10);
  EXPECT_EQ(pages, 4);
  ASSERT_EQ(paged.size(), 8u);
  for (std::size_t i = 0; i < everything.size(); ++i) EXPECT_EQ(paged[i], everything[i].id);
  EXPECT_EQ(paged.back(), expected.back());
  EXPECT_EQ(std::set<MessageId>(paged.begin(), paged.end()).size(), 8u) << "no row twice";
}

TYPED_TEST(DeadLetterOperationsTests, Groups_OneCausePerGroupMergedByTheErrorsFirstLine) {
  this->dead_outbox("broker down\nat publish()", FailureReason::TransportException);
  this->clock_.advance(1min);
  this->dead_outbox("broker down\nat connect()", FailureReason::TransportException);
  this->dead_outbox("broker down", FailureReason::TransportException);
  this->dead_inbox("database is locked");
  auto groups = this->store_->dead_letter_groups({});
  ASSERT_TRUE(groups.ok()) << groups.status();
  ASSERT_EQ(groups->size(), 2u);
  const DeadLetterGroup& broker = (*groups)[0];
  EXPECT_EQ(broker.error_first_line, "broker down");
  EXPECT_EQ(broker.count, 3);
  EXPECT_EQ(broker.source, DeadLetterSource::Outbox);
  EXPECT_EQ(broker.last_at - broker.first_at, 1min);
  EXPECT_EQ((*groups)[1].count, 1);
  auto found = find_dead_letter_group(*this->store_, broker.key);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->count, 3);
  EXPECT_EQ(broker.key, dead_letter_group_key(this->list({}).front()));
}

TYPED_TEST(DeadLetterOperationsTests, FindOne_RowEnvelopeAndTheInvocationRecordsOfItsMessage) {
  const InboxMessage message = this->dead_inbox("boom");
  const ReceptorInvocationRecord record{
      "shop::Mailer", Stage::PostInboxInline, this->clock_.now(), 5us, "orders", ""};
  ASSERT_TRUE(this->store_->record_receptor_invocations(message.message_id, {&record, 1}).ok());
  auto found = this->store_->find_dead_letter({DeadLetterSource::Inbox, message.message_id});
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->letter.error, "boom");
  EXPECT_EQ((*found)->envelope_json, message.envelope_json);
  ASSERT_EQ((*found)->invocations.size(), 1u);
  EXPECT_EQ((*found)->invocations[0].receptor_id, "shop::Mailer");
  auto wrong_source =
      this->store_->find_dead_letter({DeadLetterSource::Outbox, message.message_id});
  ASSERT_TRUE(wrong_source.ok());
  EXPECT_FALSE(wrong_source->has_value());
  auto unknown = this->store_->find_dead_letter({DeadLetterSource::Inbox, MessageId::mint()});
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
}

TYPED_TEST(DeadLetterOperationsTests, RequeueByKey_OnlyThoseAreDueAgain) {
  const auto first = this->dead_outbox("a");
  const auto second = this->dead_outbox("b");
  const DeadLetterKey key{DeadLetterSource::Outbox, first.message_id};
  auto requeued = this->store_->requeue_dead_letter_keys({&key, 1});
  ASSERT_TRUE(requeued.ok()) << requeued.status();
  EXPECT_EQ(*requeued, 1u);
  EXPECT_EQ(this->ids(this->list({})), std::set<MessageId>{second.message_id});
  auto claimed = this->store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].message_id, first.message_id);
}

TYPED_TEST(DeadLetterOperationsTests, Discard_KeptWithReason_NeverListedCountedRequeuedOrClaimed) {
  const auto discarded = this->dead_inbox("poison");
  const auto kept = this->dead_inbox("other");
  const DeadLetterKey key{DeadLetterSource::Inbox, discarded.message_id};
  auto count = this->store_->discard_dead_letters({&key, 1}, "order cancelled by hand");
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(*count, 1u);
  EXPECT_EQ(*this->store_->discard_dead_letters({&key, 1}, "again"), 0u) << "already gone";

  EXPECT_EQ(this->ids(this->list({})), std::set<MessageId>{kept.message_id});
  auto letters = this->store_->dead_letters(100);
  ASSERT_TRUE(letters.ok());
  EXPECT_EQ(letters->size(), 1u);
  auto backlog = this->store_->work_backlog();
  ASSERT_TRUE(backlog.ok()) << backlog.status();
  EXPECT_EQ(backlog->dead_letters, 1);
  EXPECT_EQ(*this->store_->requeue_dead_letters({}), 1u) << "only the one kept";
  auto claimed = this->store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].message_id, kept.message_id);

  auto kept_discarded = this->store_->discarded_dead_letters(10);
  ASSERT_TRUE(kept_discarded.ok()) << kept_discarded.status();
  ASSERT_EQ(kept_discarded->size(), 1u);
  EXPECT_EQ((*kept_discarded)[0].letter.id, discarded.message_id);
  EXPECT_EQ((*kept_discarded)[0].letter.error, "poison");
  EXPECT_EQ((*kept_discarded)[0].discard_reason, "order cancelled by hand");
  EXPECT_EQ((*kept_discarded)[0].discarded_at, this->clock_.now());
}

// A discarded message stays discarded when the handling that emitted it runs again (its inbox
// row requeued, a replay) and derives the same id: the store turns the outbox row into a counted
// no-op, as it does for a published one, and the inbox still knows the delivery.
TYPED_TEST(DeadLetterOperationsTests, DiscardedMessage_StoredAgain_IsADuplicateNeverPublished) {
  const OutboxMessage outbox = this->dead_outbox("poison");
  const InboxMessage inbox = this->dead_inbox("poison");
  const std::array<DeadLetterKey, 2> keys{
      DeadLetterKey{DeadLetterSource::Outbox, outbox.message_id},
      DeadLetterKey{DeadLetterSource::Inbox, inbox.message_id}};
  ASSERT_EQ(*this->store_->discard_dead_letters(keys, "never to be sent"), 2u);

  OutboxMessage emitted_again = outbox;
  auto stored = this->store_->store_outbox_messages({&emitted_again, 1});
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_FALSE((*stored)[0].was_newly_created);
  InboxMessage delivered_again = inbox;
  auto received = this->store_->store_inbox_messages({&delivered_again, 1}, Uuid());
  ASSERT_TRUE(received.ok()) << received.status();
  EXPECT_TRUE(received->empty());

  auto claimed = this->store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_TRUE(claimed->empty());
  EXPECT_TRUE(this->list({}).empty());
}

TYPED_TEST(DeadLetterOperationsTests, Backlog_CountsPendingRowsAndDeadLetters) {
  OutboxMessage pending = outbox_message(OrderCreated{"p", 1}, "orders");
  ASSERT_TRUE(this->store_->store_outbox_messages({&pending, 1}).ok());
  this->dead_outbox("x");
  this->dead_inbox("y");
  auto backlog = this->store_->work_backlog();
  ASSERT_TRUE(backlog.ok()) << backlog.status();
  EXPECT_EQ(backlog->outbox, 1);
  EXPECT_EQ(backlog->inbox, 0);
  EXPECT_EQ(backlog->dead_letters, 2);
}

TEST(DeadLetterNamesTests, SourcesReasonsAndFirstLines_RoundTrip) {
  for (auto source :
       {DeadLetterSource::Outbox, DeadLetterSource::Inbox, DeadLetterSource::PerspectiveEvent,
        DeadLetterSource::LifecycleCompletion, DeadLetterSource::DetachedWork}) {
    EXPECT_EQ(parse_dead_letter_source(dead_letter_source_name(source)), source);
  }
  EXPECT_FALSE(parse_dead_letter_source("perspective event").has_value());
  EXPECT_EQ(parse_failure_reason("MaxAttemptsExceeded"), FailureReason::MaxAttemptsExceeded);
  EXPECT_FALSE(parse_failure_reason("Nope").has_value());
  EXPECT_EQ(error_first_line("a\nb"), "a");
  EXPECT_EQ(error_first_line("a"), "a");
}

}  // namespace
}  // namespace store_test
