// Rewind (docs/perspectives.md, "Rewind"): an event that reaches a perspective after a later one of
// its stream was applied (appended late, occurred earlier) is applied in its place.
#include <gtest/gtest.h>

#include <whizbang/dispatch/dispatcher.hpp>
#include <whizbang/lifecycle/receptor_invoker.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/workers/perspective_runner.hpp>
#include <whizbang/workers/perspective_worker.hpp>

#include "support/log_capture.hpp"
#include "sync_fixture.hpp"

namespace psync {
namespace {

using whizbang::MessageId;
using whizbang::TimePoint;
using whizbang::Uuid;

class PerspectiveRewindTests : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    whizbang::StoreOptions options;
    options.instance = self_;
    options.logger = log_.logger;
    store_ = location_.open(options);
    ASSERT_NE(store_, nullptr);
    whizbang::DispatcherOptions dispatcher_options;
    dispatcher_options.self = self_;
    dispatcher_options.store = store_.get();
    auto dispatcher =
        whizbang::Dispatcher::create(test_registry(), services_, std::move(dispatcher_options));
    ASSERT_TRUE(dispatcher.ok()) << dispatcher.status();
    dispatcher_ = *std::move(dispatcher);
    invoker_ = std::make_unique<whizbang::ReceptorInvoker>(*dispatcher_,
                                                           whizbang::ReceptorInvokerOptions{});
    whizbang::PerspectiveRunnerOptions runner_options;
    runner_options.logger = log_.logger;
    runner_options.metrics = metrics_;
    auto runner = whizbang::PerspectiveRunner::create(test_registry(), services_, *store_,
                                                      *invoker_, runner_options);
    ASSERT_TRUE(runner.ok()) << runner.status();
    runner_ = *std::move(runner);
    worker_ = std::make_unique<whizbang::PerspectiveWorker>(*store_, *runner_);
  }
  void TearDown() override {
    worker_.reset();
    runner_.reset();
    store_.reset();
  }

  // Appends ItemAdded{name} to `stream` as having occurred at `occurred` (the event store takes
  // it as its next version, whenever it occurred), then lets the perspective worker apply it.
  void append_and_apply(const Uuid& stream, std::string name, TimePoint occurred) {
    ItemAdded added;
    added.name = std::move(name);
    whizbang::Envelope envelope =
        whizbang::Envelope::create(whizbang::AnyMessage::make(std::move(added)), self_);
    envelope.hops.front().stream_id = stream;
    envelope.hops.front().timestamp = occurred;
    whizbang::OutboxMessage row;
    row.message_id = envelope.message_id;
    row.message_type = std::string(whizbang::MessageTraits<ItemAdded>::info().wire_name);
    row.envelope_json = whizbang::serialize_envelope(envelope);
    row.stream_id = stream;
    row.is_event = true;
    whizbang::WorkBatchRequest request;
    request.new_outbox.push_back(std::move(row));
    auto stored = store_->process_work_batch(request);  // appends it to the event store
    ASSERT_TRUE(stored.ok()) << stored.status();
    auto cycle = worker_->run_once();
    ASSERT_TRUE(cycle.ok()) << cycle.status();
    EXPECT_EQ(cycle->applied, 1u);
    EXPECT_EQ(cycle->failed, 0u);
  }

  std::int64_t rewinds() const {
    return metrics_->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                             whizbang::metric_names::kPerspectiveRewinds,
                             {{whizbang::metric_names::kPerspectiveTag, kTrail}});
  }

  static TimePoint at(int second) {
    return TimePoint(std::chrono::seconds(1'750'000'000 + second));
  }

  whizbang::ServiceInstance self_{"sync-tests", MessageId::mint().uuid(), "test-host", 7};
  StoreLocation location_{GetParam()};
  whizbang_test::LogCapture log_;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics_ =
      std::make_shared<whizbang::InMemoryMetrics>();
  whizbang::ServiceRegistry services_;
  std::unique_ptr<whizbang::WorkStore> store_;
  std::unique_ptr<whizbang::Dispatcher> dispatcher_;
  std::unique_ptr<whizbang::ReceptorInvoker> invoker_;
  std::unique_ptr<whizbang::PerspectiveRunner> runner_;
  std::unique_ptr<whizbang::PerspectiveWorker> worker_;
};

TEST_P(PerspectiveRewindTests,
       LateEventThatOccurredEarlier_IsAppliedInItsPlace_ModelEqualsInOrder) {
  // Live: a and c arrive, then b, which occurred between them (appended late by another service).
  PostPerspectiveRecorder::clear();
  const Uuid live = MessageId::mint().uuid();
  append_and_apply(live, "a", at(1));
  append_and_apply(live, "c", at(3));
  EXPECT_EQ(rewinds(), 0);
  append_and_apply(live, "b", at(2));
  // The late event's stages ran once; the re-applied a and c fired nothing again.
  EXPECT_EQ(PostPerspectiveRecorder::fired(), (std::vector<std::string>{"a", "c", "b"}));

  // The same events appended in the order they occurred.
  const Uuid in_order = MessageId::mint().uuid();
  append_and_apply(in_order, "a", at(1));
  append_and_apply(in_order, "b", at(2));
  append_and_apply(in_order, "c", at(3));

  const std::optional<Trail> trail = stored_trail(*store_, live);
  ASSERT_TRUE(trail.has_value());
  EXPECT_EQ(trail->names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(stored_json(*store_, live), stored_json(*store_, in_order));

  EXPECT_EQ(rewinds(), 1);  // the late event only; the in-order stream never rewound
  EXPECT_EQ(log_.count("rewound stream"), 1);
  auto cursor = store_->load_perspective_cursor(kTrail, live);
  ASSERT_TRUE(cursor.ok()) << cursor.status();
  ASSERT_TRUE(cursor->has_value());
  EXPECT_EQ((*cursor)->rewind_count, 1);
  EXPECT_EQ((*cursor)->last_stream_version, 2);  // still c: the furthest in perspective order
  EXPECT_EQ((*cursor)->last_occurred_at_us, whizbang::to_unix_micros(at(3)));
}

TEST_P(PerspectiveRewindTests, SeveralLateEvents_EachRewinds_ModelStaysInOccurrenceOrder) {
  const Uuid stream = MessageId::mint().uuid();
  append_and_apply(stream, "d", at(4));
  append_and_apply(stream, "b", at(2));
  append_and_apply(stream, "e", at(5));
  append_and_apply(stream, "a", at(1));
  const std::optional<Trail> trail = stored_trail(*store_, stream);
  ASSERT_TRUE(trail.has_value());
  EXPECT_EQ(trail->names, (std::vector<std::string>{"a", "b", "d", "e"}));
  EXPECT_EQ(rewinds(), 2);
}

INSTANTIATE_TEST_SUITE_P(Stores, PerspectiveRewindTests, whizbang_test::all_backends(),
                         whizbang_test::backend_name);

}  // namespace
}  // namespace psync
