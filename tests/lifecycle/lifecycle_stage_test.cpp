// Stage registration and the invoker's stage filters (docs/guide/02-attributes-and-stages.md;
// the reference's scenarios 50-57) and LifecycleStageTrackerTests.
#include <thread>

#include "fixture.hpp"

namespace lifecycle_test {
namespace {

using whizbang::Stage;

const whizbang::ReceptorInfo& receptor(std::string_view id) {
  const whizbang::ReceptorInfo* found = test_registry().find_receptor(id);
  EXPECT_NE(found, nullptr) << id;
  return *found;
}

TEST(LifecycleStageTests, Scenario50_ReceptorWithoutFireAt_RegistersAtTheTwoDefaultStagesOnly) {
  const auto& shared = receptor("lifecycle_test::SharedProjection");
  EXPECT_TRUE(shared.default_stages);
  EXPECT_EQ(std::vector<Stage>(shared.stages.begin(), shared.stages.end()),
            (std::vector<Stage>{Stage::LocalImmediateDetached, Stage::PostInboxDetached}));
  const auto& audit = receptor("lifecycle_test::TwoStageAudit");
  EXPECT_FALSE(audit.default_stages);
  EXPECT_EQ(std::vector<Stage>(audit.stages.begin(), audit.stages.end()),
            (std::vector<Stage>{Stage::LocalImmediateInline, Stage::PreOutboxInline}));
}

TEST(LifecycleStageTests, Scenario51_PostInboxFromThisService_FiresNothingWhateverTheCase) {
  FireLog log;
  LogCapture capture;
  ServiceUnderTest payments(log, "payments", {}, capture.logger);
  whizbang::Envelope envelope = envelope_from(PaymentCaptured{}, "PAYMENTS");
  auto report = payments.invoke(envelope, Stage::PostInboxInline);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->filtered_event_id, 10);
  EXPECT_EQ(log.count("InboxObserver"), 0);
  EXPECT_EQ(capture.count("[EventId 10 SameServiceInboxSkip]"), 1);
}

struct OwnershipCase {
  bool event;
  whizbang::DispatchModes mode;
  bool fires;
};

TEST(LifecycleStageTests, Scenario52_OwnedDomainsAtPreOutbox_FollowTheTruthTable) {
  FireLog log;
  whizbang::ReceptorInvokerOptions owned;
  owned.owned_domains = {"lifecycle_test"};
  ServiceUnderTest payments(log, "payments", owned);
  // Owned event fires; owned command skips.
  whizbang::Envelope event = envelope_from(PaymentCaptured{}, "payments");
  event.dispatch_context.mode = whizbang::DispatchModes::Outbox;
  ASSERT_EQ(payments.invoke(event, Stage::PreOutboxInline)->filtered_event_id, 0);
  EXPECT_EQ(log.count("TwoStageAudit"), 1);
  whizbang::Envelope command = envelope_from(ChargeCard{}, "payments");
  command.dispatch_context.mode = whizbang::DispatchModes::Outbox;
  EXPECT_EQ(payments.invoke(command, Stage::PreOutboxInline)->filtered_event_id, 11);
  EXPECT_EQ(log.count("OutboxGate"), 0);
  // Foreign event skips; foreign command fires.
  whizbang::ReceptorInvokerOptions foreign;
  foreign.owned_domains = {"elsewhere"};
  ServiceUnderTest other(log, "other", foreign);
  whizbang::Envelope foreign_event = envelope_from(PaymentCaptured{}, "other");
  foreign_event.dispatch_context.mode = whizbang::DispatchModes::Outbox;
  EXPECT_EQ(other.invoke(foreign_event, Stage::PreOutboxInline)->filtered_event_id, 11);
  whizbang::Envelope foreign_command = envelope_from(ChargeCard{}, "other");
  foreign_command.dispatch_context.mode = whizbang::DispatchModes::Outbox;
  EXPECT_EQ(other.invoke(foreign_command, Stage::PreOutboxInline)->filtered_event_id, 0);
  EXPECT_EQ(log.count("OutboxGate"), 1);
  // An envelope dispatched with LocalDispatch (Local or Both) skips.
  for (auto mode : {whizbang::DispatchModes::Local, whizbang::DispatchModes::Both}) {
    whizbang::Envelope local = envelope_from(ChargeCard{}, "other");
    local.dispatch_context.mode = mode;
    EXPECT_EQ(other.invoke(local, Stage::PreOutboxInline)->filtered_event_id, 12);
  }
}

TEST(LifecycleStageTests, Scenario53_NoOwnedDomains_EveryStageFires) {
  FireLog log;
  ServiceUnderTest payments(log, "payments");
  whizbang::Envelope command = envelope_from(ChargeCard{}, "payments");
  command.dispatch_context.mode = whizbang::DispatchModes::Local;
  ASSERT_TRUE(payments.invoke(command, Stage::PreOutboxInline).ok());
  EXPECT_EQ(log.count("OutboxGate"), 1);
}

TEST(LifecycleStageTests, Scenario54_StageTracker_SameStageFiresOnceUntilReleased) {
  FireLog log;
  whizbang::LifecycleStageTracker tracker;
  whizbang::ReceptorInvokerOptions options;
  options.tracker = &tracker;
  options.guardrails.tracking = whizbang::ReceptorInvocationTracking::Off;  // the tracker alone
  ServiceUnderTest payments(log, "payments", options);
  whizbang::Envelope envelope = envelope_from(PaymentCaptured{}, "orders");
  ASSERT_TRUE(payments.invoke(envelope, Stage::PostInboxInline).ok());
  EXPECT_EQ(payments.invoke(envelope, Stage::PostInboxInline)->filtered_event_id, 13);
  EXPECT_EQ(log.count("InboxObserver"), 1);
  tracker.release(envelope.message_id, Stage::PostInboxInline);
  ASSERT_TRUE(payments.invoke(envelope, Stage::PostInboxInline).ok());
  EXPECT_EQ(log.count("InboxObserver"), 2);
}

TEST(LifecycleStageTests, Scenario56_ReplayMode_OnlyAlwaysFireReceptorsFire) {
  FireLog log;
  ServiceUnderTest payments(log, "payments");
  whizbang::Envelope envelope = envelope_from(PaymentCaptured{}, "orders");
  whizbang::LifecycleContext replay;
  replay.mode = whizbang::ProcessingMode::Replay;
  auto report = payments.invoke(envelope, Stage::PostInboxInline, replay);
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(report->fired, ::testing::ElementsAre("lifecycle_test::ReplayedProjection"));
  EXPECT_EQ(log.count("InboxObserver"), 0);
  whizbang::Envelope explode = envelope_from(Explode{}, "orders");
  EXPECT_EQ(payments.invoke(explode, Stage::PostInboxInline, replay)->filtered_event_id, 14);
}

TEST(LifecycleStageTests, Scenario57_EnvelopeWithoutPayload_FiresNothing) {
  FireLog log;
  ServiceUnderTest payments(log, "payments");
  whizbang::Envelope empty;  // what a Route::None() payload leaves
  empty.message_id = whizbang::MessageId::mint();
  auto report = payments.invoke(empty, Stage::PostInboxInline);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->fired.empty());
}

TEST(LifecycleStageTests, NoReceptorsAtStage_LogsEventId15) {
  FireLog log;
  LogCapture capture;
  ServiceUnderTest payments(log, "payments", {}, capture.logger);
  whizbang::Envelope envelope = envelope_from(ChargeCard{}, "orders");
  EXPECT_EQ(payments.invoke(envelope, Stage::PostLifecycleInline)->filtered_event_id, 15);
  EXPECT_EQ(capture.count("[EventId 15 NoReceptorsAtStage]"), 1);
}

TEST(LifecycleStageTests, PerspectiveScopedStage_FiresOncePerPerspectiveWithoutAWarning) {
  FireLog log;
  LogCapture capture;
  ServiceUnderTest payments(log, "payments", {}, capture.logger);
  whizbang::Envelope envelope = envelope_from(PaymentCaptured{}, "orders");
  for (const char* perspective : {"shop::Summary", "shop::Ledger"}) {
    whizbang::LifecycleContext context;
    context.perspective = perspective;
    ASSERT_TRUE(payments.invoke(envelope, Stage::PostPerspectiveInline, context).ok());
  }
  EXPECT_EQ(log.count("PerPerspectiveCounter"), 2);
  EXPECT_EQ(capture.count("[EventId 18"), 0);
  ASSERT_EQ(envelope.receptor_invocations.size(), 2u);
  EXPECT_EQ(envelope.receptor_invocations[0].perspective, "shop::Summary");
  EXPECT_EQ(envelope.receptor_invocations[1].perspective, "shop::Ledger");
}

TEST(LifecycleStageTrackerTests, FirstClaimWins_SecondClaimOfTheSameStageLoses) {
  whizbang::LifecycleStageTracker tracker;
  const auto id = whizbang::MessageId::mint();
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostInboxInline));
}

TEST(LifecycleStageTrackerTests, SameMessageDifferentStage_BothClaim) {
  whizbang::LifecycleStageTracker tracker;
  const auto id = whizbang::MessageId::mint();
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostLifecycleInline));
}

TEST(LifecycleStageTrackerTests, DifferentMessages_BothClaim) {
  whizbang::LifecycleStageTracker tracker;
  EXPECT_TRUE(tracker.try_claim(whizbang::MessageId::mint(), Stage::PostInboxInline));
  EXPECT_TRUE(tracker.try_claim(whizbang::MessageId::mint(), Stage::PostInboxInline));
}

TEST(LifecycleStageTrackerTests, Release_AllowsReclaim) {
  whizbang::LifecycleStageTracker tracker;
  const auto id = whizbang::MessageId::mint();
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  tracker.release(id, Stage::PostInboxInline);
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
}

TEST(LifecycleStageTrackerTests, Purge_RemovesExpiredClaims) {
  whizbang::LifecycleStageTracker tracker;
  const auto id = whizbang::MessageId::mint();
  ASSERT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
  EXPECT_EQ(tracker.purge(std::chrono::hours(1)), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(tracker.purge(std::chrono::milliseconds(1)), 1u);
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostInboxInline));
}

TEST(LifecycleStageTrackerTests, PerspectiveScopedStages_ClaimOncePerPerspective) {
  whizbang::LifecycleStageTracker tracker;
  const auto id = whizbang::MessageId::mint();
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostPerspectiveInline, "A"));
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostPerspectiveInline, "B"));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostPerspectiveInline, "A"));
  // Not perspective-scoped: the perspective does not split the claim.
  EXPECT_TRUE(tracker.try_claim(id, Stage::PostAllPerspectivesInline, "A"));
  EXPECT_FALSE(tracker.try_claim(id, Stage::PostAllPerspectivesInline, "B"));
}

}  // namespace
}  // namespace lifecycle_test
