// The perspective-sync part of the WorkStore contract (PerspectiveSyncStore), on every backend:
// cursors per (perspective, stream), and where events stand with their perspectives.
#include <gtest/gtest.h>

#include "store_backends.hpp"

namespace store_test {
namespace {

using namespace whizbang;

template <class Backend>
class PerspectiveSyncStoreContractTests : public BackendStoreTest<Backend> {
 protected:
  void SetUp() override {
    BackendStoreTest<Backend>::SetUp();
    if (this->HasFatalFailure()) return;
    ASSERT_TRUE(this->store_->add_perspective_association("store_test::OrderCreated", "A").ok());
    ASSERT_TRUE(this->store_->add_perspective_association("store_test::OrderCreated", "B").ok());
  }

  // Appends an OrderCreated event on `stream` (event store + perspective events for A and B).
  MessageId store_event(const Uuid& stream) {
    const MessageId id = MessageId::mint();
    WorkBatchRequest request;
    request.new_outbox.push_back(outbox_message(OrderCreated{"o", 1}, std::nullopt, stream, id));
    auto items = this->store_->process_work_batch(request);
    EXPECT_TRUE(items.ok()) << items.status();
    return id;
  }
  EventSyncState state_of(const MessageId& id) {
    auto states = this->store_->event_sync_states(std::span<const MessageId>(&id, 1));
    EXPECT_TRUE(states.ok()) << states.status();
    if (!states.ok() || states->size() != 1) return {};
    return states->front();
  }
  static std::vector<std::string> names(const EventSyncState& state) {
    std::vector<std::string> out;
    for (const PendingPerspective& pending : state.pending) out.push_back(pending.perspective_name);
    return out;
  }
};

TYPED_TEST_SUITE(PerspectiveSyncStoreContractTests, Backends, BackendNames);

TYPED_TEST(PerspectiveSyncStoreContractTests, Cursor_AbsentUntilSaved_ThenUpsertedPerStream) {
  const Uuid stream = MessageId::mint().uuid();
  auto missing = this->store_->load_perspective_cursor("A", stream);
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_FALSE(missing->has_value());

  PerspectiveCursor cursor;
  cursor.perspective_name = "A";
  cursor.stream_id = stream;
  cursor.last_event_id = MessageId::mint();
  cursor.last_stream_version = 3;
  cursor.last_occurred_at_us = 1'750'000'000'000'000;
  ASSERT_TRUE(this->store_->save_perspective_cursor(cursor).ok());
  cursor.rewind_count = 2;
  cursor.last_stream_version = 4;
  ASSERT_TRUE(this->store_->save_perspective_cursor(cursor).ok());

  auto loaded = this->store_->load_perspective_cursor("A", stream);
  ASSERT_TRUE(loaded.ok() && loaded->has_value()) << loaded.status();
  EXPECT_EQ((*loaded)->perspective_name, "A");
  EXPECT_EQ((*loaded)->stream_id, stream);
  EXPECT_EQ((*loaded)->last_event_id, cursor.last_event_id);
  EXPECT_EQ((*loaded)->last_stream_version, 4);
  EXPECT_EQ((*loaded)->last_occurred_at_us, 1'750'000'000'000'000);
  EXPECT_EQ((*loaded)->rewind_count, 2);
  EXPECT_EQ((*loaded)->updated_at, this->clock_.now());
  auto other = this->store_->load_perspective_cursor("B", stream);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TYPED_TEST(PerspectiveSyncStoreContractTests, Cursor_SaveRolledBackWithItsTransaction) {
  PerspectiveCursor cursor;
  cursor.perspective_name = "A";
  cursor.stream_id = MessageId::mint().uuid();
  cursor.last_event_id = MessageId::mint();
  {
    Transaction tx(*this->store_);
    ASSERT_TRUE(this->store_->save_perspective_cursor(cursor).ok());
  }
  auto loaded = this->store_->load_perspective_cursor("A", cursor.stream_id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(loaded->has_value());
}

TYPED_TEST(PerspectiveSyncStoreContractTests, EventSyncStates_FollowAnEventFromUnknownToApplied) {
  const MessageId unknown = MessageId::mint();
  EventSyncState state = this->state_of(unknown);
  EXPECT_EQ(state.event_id, unknown);
  EXPECT_FALSE(state.stored);
  EXPECT_TRUE(state.pending.empty());

  const MessageId event = this->store_event(MessageId::mint().uuid());
  state = this->state_of(event);
  EXPECT_TRUE(state.stored);
  EXPECT_EQ(this->names(state), (std::vector<std::string>{"A", "B"}));
  EXPECT_FALSE(state.pending[0].dead_lettered);

  auto work = this->store_->claim_perspective_work(10);
  ASSERT_TRUE(work.ok()) << work.status();
  ASSERT_EQ(work->size(), 2u);
  const MessageId a =
      (*work)[0].perspective_name == "A" ? (*work)[0].event_work_id : (*work)[1].event_work_id;
  ASSERT_TRUE(this->store_->complete_perspective_work(std::span<const MessageId>(&a, 1)).ok());
  state = this->state_of(event);
  EXPECT_EQ(this->names(state), std::vector<std::string>{"B"});

  // Several ids at once, in the order asked.
  const std::vector<MessageId> both{unknown, event};
  auto states = this->store_->event_sync_states(both);
  ASSERT_TRUE(states.ok()) << states.status();
  ASSERT_EQ(states->size(), 2u);
  EXPECT_EQ((*states)[0].event_id, unknown);
  EXPECT_FALSE((*states)[0].stored);
  EXPECT_EQ((*states)[1].event_id, event);
  EXPECT_TRUE((*states)[1].stored);
}

TYPED_TEST(PerspectiveSyncStoreContractTests, EventSyncStates_ReportADeadLetterWithItsError) {
  const MessageId event = this->store_event(MessageId::mint().uuid());
  auto work = this->store_->claim_perspective_work(10);
  ASSERT_TRUE(work.ok()) << work.status();
  ASSERT_EQ(work->size(), 2u);
  for (const PerspectiveWork& item : *work) {
    if (item.perspective_name != "B") continue;
    ASSERT_TRUE(this->store_->fail_perspective_work(item.event_work_id, "B broke", true).ok());
  }
  const EventSyncState state = this->state_of(event);
  ASSERT_EQ(this->names(state), (std::vector<std::string>{"A", "B"}));
  EXPECT_FALSE(state.pending[0].dead_lettered);
  EXPECT_TRUE(state.pending[1].dead_lettered);
  EXPECT_NE(state.pending[1].error.find("B broke"), std::string::npos) << state.pending[1].error;
}

// A commit that completes or fails perspective work tells the commit listeners (what
// PerspectiveSync wakes on); one that does not, does not.
TYPED_TEST(PerspectiveSyncStoreContractTests, PerspectiveWorkCommits_WakeTheCommitListeners) {
  int perspective_commits = 0;
  const int listener = this->store_->add_commit_listener([&](const CommitInfo& info) {
    if (info.perspectives_written) ++perspective_commits;
  });
  this->store_event(MessageId::mint().uuid());
  EXPECT_EQ(perspective_commits, 0);
  auto work = this->store_->claim_perspective_work(10);
  ASSERT_TRUE(work.ok()) << work.status();
  ASSERT_EQ(work->size(), 2u);
  const MessageId first = (*work)[0].event_work_id;
  ASSERT_TRUE(this->store_->complete_perspective_work(std::span<const MessageId>(&first, 1)).ok());
  EXPECT_EQ(perspective_commits, 1);
  ASSERT_TRUE(this->store_->fail_perspective_work((*work)[1].event_work_id, "boom", false).ok());
  EXPECT_EQ(perspective_commits, 2);
  this->store_->remove_commit_listener(listener);
}

}  // namespace
}  // namespace store_test
