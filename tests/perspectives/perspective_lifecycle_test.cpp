// PerspectiveLifecycleTests: the perspective-scoped stages fire once per perspective (scenario 55)
// without tripping the guardrail, in order around the apply; models persist across events;
// PostLifecycle fires once; replay fires only always-fire receptors.
#include <gtest/gtest.h>

#include <set>

#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/store_reader.hpp>

#include "fixture.hpp"

namespace persp {
namespace {

using whizbang::MessageId;
using whizbang::Stage;

class PerspectiveLifecycleTests : public ::testing::TestWithParam<Backend> {};

TEST_P(PerspectiveLifecycleTests, Scenario55_PostPerspectiveInlineFiresOncePerPerspective) {
  PerspectiveFixture f(GetParam());
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 1}, MessageId::mint().uuid());
  ASSERT_TRUE(f.runner->process(envelope).ok());

  EXPECT_EQ(f.journal.count("PostPerspectiveInline"), 2);
  EXPECT_EQ(f.journal.count("PostPerspectiveDetached"), 2);
  EXPECT_EQ(f.journal.count("PrePerspectiveInline"), 2);
  EXPECT_EQ(f.journal.count("PrePerspectiveDetached"), 2);
  EXPECT_EQ(f.log_count("ReceptorAlreadyFiredSkip"), 0) << "N-per-perspective is not a double fire";

  // Each invocation's record carries the perspective it ran under.
  std::multiset<std::string> perspectives;
  for (const auto& record : envelope.receptor_invocations) {
    if (record.receptor_id == "persp::PostPerspectiveInlineReceptor") {
      EXPECT_EQ(record.stage, Stage::PostPerspectiveInline);
      EXPECT_EQ(record.service_name, "orders");
      perspectives.insert(record.perspective);
    }
  }
  EXPECT_EQ(perspectives, (std::multiset<std::string>{std::string(kCount), std::string(kSummary)}));
}

TEST_P(PerspectiveLifecycleTests, PrePerspectiveBeforeApply_PostPerspectiveAfter) {
  PerspectiveFixture f(GetParam());
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 1}, MessageId::mint().uuid());
  ASSERT_TRUE(f.runner->process(envelope).ok());
  // Perspectives run in name order: CountPerspective, then SummaryPerspective.
  const std::vector<std::string> expected = {"PrePerspectiveDetached",
                                             "PrePerspectiveInline",
                                             "apply:Count",
                                             "PostPerspectiveDetached",
                                             "PostPerspectiveInline",
                                             "ReplayAware",
                                             "PrePerspectiveDetached",
                                             "PrePerspectiveInline",
                                             "apply-start:Summary",
                                             "apply:Summary",
                                             "PostPerspectiveDetached",
                                             "PostPerspectiveInline",
                                             "ReplayAware",
                                             "PostAllPerspectivesDetached",
                                             "PostAllPerspectivesInline",
                                             "PostLifecycleDetached",
                                             "PostLifecycleInline"};
  EXPECT_EQ(f.journal.entries(), expected);
}

TEST_P(PerspectiveLifecycleTests, ModelPersistedAndReappliedAcrossEvents) {
  PerspectiveFixture f(GetParam());
  const whizbang::Uuid stream = MessageId::mint().uuid();
  const whizbang::Uuid other = MessageId::mint().uuid();
  whizbang::Envelope created = f.envelope(OrderCreated{{}, "o-1", 3}, stream);
  whizbang::Envelope shipped = f.envelope(OrderShipped{{}, "o-1"}, stream);
  whizbang::Envelope elsewhere = f.envelope(OrderCreated{{}, "o-2", 5}, other);
  ASSERT_TRUE(f.runner->process(created).ok());
  ASSERT_TRUE(f.runner->process(shipped).ok());
  ASSERT_TRUE(f.runner->process(elsewhere).ok());

  const OrderSummary summary = f.model<OrderSummary>(kSummary, stream);
  EXPECT_EQ(summary.order_id, "o-1");
  EXPECT_EQ(summary.items, 3);
  EXPECT_TRUE(summary.shipped);
  EXPECT_EQ(summary.applied, 2) << "the second event was applied to the stored model";
  EXPECT_EQ(summary.total.cents, 300);
  const OrderCount count = f.model<OrderCount>(kCount, stream);
  EXPECT_EQ(count.created, 1);
  EXPECT_EQ(count.ids, std::vector<std::string>{"o-1"});

  const OrderSummary separate = f.model<OrderSummary>(kSummary, other);
  EXPECT_EQ(separate.items, 5);
  EXPECT_EQ(separate.applied, 1) << "models are per stream";
  auto row = f.store->load_perspective_model(kSummary, stream);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->last_event_id, shipped.message_id);
}

TEST_P(PerspectiveLifecycleTests, PostLifecycleFiresOncePerEvent) {
  PerspectiveFixture f(GetParam());
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 1}, MessageId::mint().uuid());
  ASSERT_TRUE(f.runner->process(envelope).ok());
  EXPECT_EQ(f.journal.count("PostLifecycleDetached"), 1);
  EXPECT_EQ(f.journal.count("PostLifecycleInline"), 1);
  EXPECT_GT(f.journal.index_of("PostLifecycleDetached"),
            f.journal.index_of("PostAllPerspectivesInline"));
}

TEST_P(PerspectiveLifecycleTests, ReplayMode_OnlyAlwaysFireReceptorsFire) {
  PerspectiveFixture f(GetParam());
  const whizbang::Uuid stream = MessageId::mint().uuid();
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 2}, stream);
  ASSERT_TRUE(
      f.runner->process(envelope, {.mode = whizbang::ProcessingMode::Replay, .perspective = {}})
          .ok());
  EXPECT_EQ(f.journal.count("ReplayAware"), 2) << "once per perspective";
  for (const char* stage : {"PrePerspectiveInline", "PostPerspectiveInline",
                            "PostAllPerspectivesInline", "PostLifecycleInline"}) {
    EXPECT_EQ(f.journal.count(stage), 0) << stage;
  }
  EXPECT_EQ(f.model<OrderSummary>(kSummary, stream).items, 2) << "the models still rebuild";
}

TEST_P(PerspectiveLifecycleTests, LiveMode_AlwaysFireReceptorFiresOncePerPerspectiveToo) {
  PerspectiveFixture f(GetParam());
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 1}, MessageId::mint().uuid());
  ASSERT_TRUE(f.runner->process(envelope).ok());
  EXPECT_EQ(f.journal.count("ReplayAware"), 2);
}

TEST_P(PerspectiveLifecycleTests, PerspectivesAreDiscoveredWithTheirEventsAndAssociated) {
  PerspectiveFixture f(GetParam());
  const whizbang::Registry& registry = test_registry();
  ASSERT_EQ(registry.perspectives().size(), 2u);
  EXPECT_EQ(registry.perspectives()[0].name, kCount);
  EXPECT_EQ(registry.perspectives()[1].name, kSummary);
  EXPECT_EQ(registry.perspectives()[1].model_type, "persp::OrderSummary");
  EXPECT_EQ(registry.perspectives_for(whizbang::MessageTraits<OrderCreated>::info()).size(), 2u);
  ASSERT_EQ(registry.perspectives_for(whizbang::MessageTraits<OrderShipped>::info()).size(), 1u);
  EXPECT_EQ(registry.perspectives_for(whizbang::MessageTraits<OrderShipped>::info())[0]->name,
            kSummary);

  // create() registered the associations: a stored OrderCreated gets a perspective event each.
  whizbang::WorkBatchRequest request;
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 1}, MessageId::mint().uuid());
  whizbang::OutboxMessage row;
  row.message_id = envelope.message_id;
  row.message_type = "persp::OrderCreated";
  row.envelope_json = whizbang::serialize_envelope(envelope);
  row.stream_id = envelope.stream_id();
  row.is_event = true;
  request.new_outbox.push_back(row);
  ASSERT_TRUE(f.store->process_work_batch(request).ok());
  auto events = whizbang::reader_of(*f.store)->perspective_events(*envelope.stream_id());
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].perspective_name, kCount);
  EXPECT_EQ((*events)[1].perspective_name, kSummary);
}

INSTANTIATE_TEST_SUITE_P(Stores, PerspectiveLifecycleTests, all_backends(), backend_name);

}  // namespace
}  // namespace persp
