// The perspective-rebuild part of the WorkStore contract (perspective_rebuild_store.hpp), on every
// backend: reading the event store by perspective, the shadow's swap and the live perspective
// events it completes, rebuild requests under a lease, versions and lag.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store_backends.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

const std::vector<std::string> kTypes = {"store_test::OrderCreated"};

template <class Backend>
class PerspectiveRebuildStoreContractTests : public BackendStoreTest<Backend> {
 protected:
  void SetUp() override {
    BackendStoreTest<Backend>::SetUp();
    if (this->HasFatalFailure()) return;
    ASSERT_TRUE(this->store_->add_perspective_association("store_test::OrderCreated", "A").ok());
    ASSERT_TRUE(this->store_->add_perspective_association("store_test::OrderCreated", "B").ok());
  }
  MessageId store_event(const Uuid& stream) {
    const MessageId id = MessageId::mint();
    WorkBatchRequest request;
    request.new_outbox.push_back(outbox_message(OrderCreated{"o", 1}, std::nullopt, stream, id));
    EXPECT_TRUE(this->store_->process_work_batch(request).ok());
    return id;
  }
  std::int64_t pending(const std::string& perspective) {
    auto lag = this->store_->perspective_lag();
    EXPECT_TRUE(lag.ok()) << lag.status();
    for (const PerspectiveLag& row : *lag) {
      if (row.perspective_name == perspective) return row.pending_events;
    }
    return 0;
  }
};

TYPED_TEST_SUITE(PerspectiveRebuildStoreContractTests, Backends, BackendNames);

TYPED_TEST(PerspectiveRebuildStoreContractTests, EventStoreByPerspective_StreamsCountAndEvents) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId first = this->store_event(stream);
  const MessageId second = this->store_event(stream);
  auto streams = this->store_->perspective_streams(kTypes, std::nullopt, 10);
  ASSERT_TRUE(streams.ok()) << streams.status();
  EXPECT_THAT(*streams, ::testing::ElementsAre(stream));
  auto after = this->store_->perspective_streams(kTypes, stream, 10);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty());
  const std::vector<std::string> other = {"store_test::Nothing"};
  auto none = this->store_->perspective_streams(other, std::nullopt, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto count = this->store_->count_perspective_events(kTypes, {});
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(*count, 2);
  const Uuid streams_one[] = {stream};
  auto events = this->store_->read_perspective_events(streams_one, kTypes);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event_id, first);
  EXPECT_EQ((*events)[1].event_id, second);
  EXPECT_EQ((*events)[1].version, 2);
}

TYPED_TEST(PerspectiveRebuildStoreContractTests, Swap_ReplacesLiveModels_CompletesCoveredEvents) {
  const Uuid stream = MessageId::mint().uuid();
  const MessageId first = this->store_event(stream);
  const MessageId second = this->store_event(stream);
  ASSERT_TRUE(this->store_->save_perspective_model("A", stream, R"({"old":1})", first).ok());
  const Uuid streams_one[] = {stream};
  auto behind = this->store_->shadow_streams_behind("A#rebuild", kTypes, {});
  ASSERT_TRUE(behind.ok()) << behind.status();
  EXPECT_THAT(*behind, ::testing::ElementsAre(stream));
  ASSERT_TRUE(
      this->store_->save_perspective_model("A#rebuild", stream, R"({"new":2})", second).ok());
  ASSERT_TRUE(this->store_->record_shadow_stream("A#rebuild", stream, 2).ok());
  behind = this->store_->shadow_streams_behind("A#rebuild", kTypes, streams_one);
  ASSERT_TRUE(behind.ok());
  EXPECT_TRUE(behind->empty());
  EXPECT_EQ(this->pending("A"), 2);

  {
    Transaction tx(*this->store_);
    ASSERT_TRUE(this->store_->lock_perspective_models("A").ok());
    ASSERT_TRUE(this->store_->swap_shadow_models("A", "A#rebuild", {}).ok());
    ASSERT_TRUE(tx.commit().ok());
  }
  auto live = this->store_->load_perspective_model("A", stream);
  ASSERT_TRUE(live.ok() && live->has_value());
  EXPECT_EQ((*live)->model_json, R"({"new":2})");
  auto shadow = this->store_->has_perspective_models("A#rebuild");
  ASSERT_TRUE(shadow.ok());
  EXPECT_FALSE(*shadow);
  EXPECT_EQ(this->pending("A"), 0);  // covered by the swap
  EXPECT_EQ(this->pending("B"), 2);  // another perspective's are left alone

  // B's completions are then the events' last: each gate opens once, there.
  auto work = this->store_->claim_perspective_work(10);
  ASSERT_TRUE(work.ok());
  ASSERT_EQ(work->size(), 2u);
  std::vector<MessageId> ids;
  for (const PerspectiveWork& item : *work) ids.push_back(item.event_work_id);
  auto done = this->store_->complete_perspective_work(ids);
  ASSERT_TRUE(done.ok());
  EXPECT_THAT(done->events_completed, ::testing::UnorderedElementsAre(first, second));
}

TYPED_TEST(PerspectiveRebuildStoreContractTests, Requests_OneActive_LeasedToTheClaimer) {
  PerspectiveRebuildRow request;
  request.perspective_name = "A";
  request.mode = "in-place";
  request.streams = "";
  auto first = this->store_->request_perspective_rebuild(request);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(*first);
  auto again = this->store_->request_perspective_rebuild(request);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);  // one requested already

  const std::string names[] = {"B", "A"};
  auto claimed = this->store_->claim_perspective_rebuild(names, 1min);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_TRUE(claimed->has_value());
  PerspectiveRebuildRow row = **claimed;
  EXPECT_EQ(row.perspective_name, "A");
  EXPECT_EQ(row.mode, "in-place");
  EXPECT_EQ(row.status, "running");
  EXPECT_EQ(row.instance_id, this->options_.instance.instance_id);

  row.checkpoint = MessageId::mint().uuid();
  row.events_done = 5;
  row.events_total = 10;
  row.events_per_second = 2.5;
  auto saved = this->store_->save_perspective_rebuild(row, 1min);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_TRUE(*saved);
  auto rows = this->store_->perspective_rebuilds();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().checkpoint, row.checkpoint);
  EXPECT_EQ(rows->front().events_done, 5);
  EXPECT_DOUBLE_EQ(rows->front().events_per_second, 2.5);

  row.status = "done";
  ASSERT_TRUE(this->store_->save_perspective_rebuild(row, 1min).ok());
  auto renewed = this->store_->request_perspective_rebuild(request);
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(*renewed);  // a finished one is replaced, from the start
  rows = this->store_->perspective_rebuilds();
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->front().status, "requested");
  EXPECT_FALSE(rows->front().checkpoint.has_value());
}

TYPED_TEST(PerspectiveRebuildStoreContractTests, Versions_RecordedPerPerspective) {
  auto none = this->store_->perspective_versions();
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(this->store_->set_perspective_version("A", 1).ok());
  ASSERT_TRUE(this->store_->set_perspective_version("A", 3).ok());
  auto versions = this->store_->perspective_versions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 1u);
  EXPECT_EQ(versions->front().perspective_name, "A");
  EXPECT_EQ(versions->front().version, 3u);
}

}  // namespace
}  // namespace store_test
