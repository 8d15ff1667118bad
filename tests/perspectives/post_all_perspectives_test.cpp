// PostAllPerspectivesTests: the WhenAll gate fires once per event, after every perspective of
// the event completed, and not at all for an event no perspective applies.
#include <gtest/gtest.h>

#include <whizbang/lifecycle/executor.hpp>

#include "fixture.hpp"

namespace persp {
namespace {

using whizbang::MessageId;

TEST(PostAllPerspectivesTests, FiresExactlyOnceAfterTwoPerspectives) {
  PerspectiveFixture f;
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 2}, MessageId::mint().uuid());
  ASSERT_TRUE(f.runner->process(envelope).ok());

  EXPECT_EQ(f.journal.count("apply:Summary"), 1);
  EXPECT_EQ(f.journal.count("apply:Count"), 1);
  EXPECT_EQ(f.journal.count("PostAllPerspectivesDetached"), 1);
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 1);
  const int gate = f.journal.index_of("PostAllPerspectivesDetached");
  EXPECT_GT(gate, f.journal.index_of("apply:Summary"));
  EXPECT_GT(gate, f.journal.index_of("apply:Count"));
  EXPECT_LT(gate, f.journal.index_of("PostAllPerspectivesInline"));
  // Once per message: one record per PostAllPerspectives receptor, naming no perspective.
  int records = 0;
  for (const auto& record : envelope.receptor_invocations) {
    if (record.stage != whizbang::Stage::PostAllPerspectivesInline) continue;
    ++records;
    EXPECT_EQ(record.perspective, "");
  }
  EXPECT_EQ(records, 1);
}

TEST(PostAllPerspectivesTests, ConcurrentPerspectives_FiresOnceAndNotBeforeTheLastCompleted) {
  whizbang::ThreadPoolExecutor pool(2);
  PerspectiveFixture f(Backend::Memory, &pool);
  f.behaviour.summary_delay = std::chrono::milliseconds(30);  // Summary finishes last
  for (int i = 0; i < 5; ++i) {
    whizbang::Envelope envelope =
        f.envelope(OrderCreated{{}, "o-" + std::to_string(i), 1}, MessageId::mint().uuid());
    ASSERT_TRUE(f.runner->process(envelope).ok());
    const std::vector<std::string> entries = f.journal.entries();
    // Both perspectives ran, the slow one ended after the fast one, and the gate came after it.
    EXPECT_EQ(f.journal.count("apply:Summary"), i + 1);
    EXPECT_EQ(f.journal.count("apply:Count"), i + 1);
    EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), i + 1) << "exactly once per event";
    EXPECT_EQ(f.journal.count("PostLifecycleInline"), i + 1);
    int last_apply = -1;
    int last_gate = -1;
    for (int at = 0; at < static_cast<int>(entries.size()); ++at) {
      if (entries[at] == "apply:Summary" || entries[at] == "apply:Count") last_apply = at;
      if (entries[at] == "PostAllPerspectivesDetached") last_gate = at;
    }
    EXPECT_GT(last_gate, last_apply) << "the gate opened before the last perspective completed";
  }
  // The per-perspective records of both workers were merged onto the envelope.
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-x", 1}, MessageId::mint().uuid());
  ASSERT_TRUE(f.runner->process(envelope).ok());
  int post_perspective = 0;
  for (const auto& record : envelope.receptor_invocations) {
    post_perspective += record.receptor_id == "persp::PostPerspectiveInlineReceptor";
  }
  EXPECT_EQ(post_perspective, 2);
}

TEST(PostAllPerspectivesTests, SkippedWhenNoPerspectiveAppliesTheEvent) {
  PerspectiveFixture f;
  EXPECT_TRUE(test_registry().perspectives_for(whizbang::MessageTraits<NoteAdded>::info()).empty());
  whizbang::Envelope envelope = f.envelope(NoteAdded{{}, "hello"}, MessageId::mint().uuid());
  EXPECT_FALSE(f.runner->has_perspectives(envelope));
  ASSERT_TRUE(f.runner->process(envelope).ok());
  EXPECT_EQ(f.journal.count("Note:PostAllPerspectivesInline"), 0);
  EXPECT_EQ(f.journal.count("Note:PostLifecycleInline"), 1) << "PostLifecycle fires right away";
}

TEST(PostAllPerspectivesTests, AFailingPerspectiveKeepsTheGateShut) {
  PerspectiveFixture f;
  f.behaviour.fail_count = true;
  whizbang::Envelope envelope = f.envelope(OrderCreated{{}, "o-1", 1}, MessageId::mint().uuid());
  const absl::Status status = f.runner->process(envelope);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_EQ(f.journal.count("apply:Summary"), 1) << "the other perspective still applies";
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 0);
  EXPECT_EQ(f.journal.count("PostLifecycleInline"), 0);
}

TEST(PostAllPerspectivesTests, RedeliveredEventAppliedByEveryPerspective_FiresNothingAgain) {
  PerspectiveFixture f;
  whizbang::Envelope first = f.envelope(OrderCreated{{}, "o-1", 1}, MessageId::mint().uuid());
  whizbang::Envelope again = first;  // as received a second time, records included
  again.receptor_invocations.clear();
  ASSERT_TRUE(f.runner->process(first).ok());
  ASSERT_TRUE(f.runner->process(again).ok());
  EXPECT_EQ(f.journal.count("apply:Summary"), 1);
  EXPECT_EQ(f.journal.count("apply:Count"), 1);
  EXPECT_EQ(f.journal.count("PostAllPerspectivesInline"), 1);
  EXPECT_EQ(f.journal.count("PostLifecycleInline"), 1);
}

}  // namespace
}  // namespace persp
