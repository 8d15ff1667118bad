// ReceptorInvocationTrackingTests and EnvelopeReceptorDedupStoreTests
// (docs/guide/04-exactly-once.md: the guardrail, once per service).
#include "fixture.hpp"

namespace lifecycle_test {
namespace {

using whizbang::Stage;

constexpr const char* kShared = "lifecycle_test::SharedProjection";
constexpr const char* kEmail = "lifecycle_test::ConfirmationEmail";
constexpr const char* kUpdater = "lifecycle_test::ReadModelUpdater";

class ReceptorInvocationTrackingTests : public ::testing::Test {
 protected:
  FireLog log_;
  LogCapture capture_;
};

TEST_F(ReceptorInvocationTrackingTests, FiredInAnotherService_RunsHere) {
  ServiceUnderTest billing(log_, "billing", {}, capture_.logger);
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  envelope.receptor_invocations.push_back(
      record_of(kShared, "orders", Stage::LocalImmediateInline));
  auto report = billing.invoke(envelope, Stage::PostInboxDetached);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(log_.count("SharedProjection", "billing"), 1);
  EXPECT_EQ(capture_.count("[EventId 18 ReceptorAlreadyFiredSkip]"), 0);
}

TEST_F(ReceptorInvocationTrackingTests, FiredInThisService_IsSkipped) {
  ServiceUnderTest billing(log_, "billing", {}, capture_.logger);
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  // Service names compare without regard to case.
  envelope.receptor_invocations.push_back(
      record_of(kShared, "BILLING", Stage::LocalImmediateInline));
  auto report = billing.invoke(envelope, Stage::PostInboxDetached);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(log_.count("SharedProjection"), 0);
  EXPECT_THAT(report->skipped, ::testing::ElementsAre(kShared));
  EXPECT_EQ(capture_.count("[warning] [EventId 18 ReceptorAlreadyFiredSkip]"), 1);
}

TEST_F(ReceptorInvocationTrackingTests, OnceAcrossServices_FiredInAnotherService_IsSkipped) {
  ServiceUnderTest billing(log_, "billing", {}, capture_.logger);
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  envelope.receptor_invocations.push_back(record_of(kEmail, "orders", Stage::LocalImmediateInline));
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(log_.count("ConfirmationEmail"), 0);
  EXPECT_EQ(log_.count("SharedProjection", "billing"), 1);  // ordinary receptors still run
}

TEST_F(ReceptorInvocationTrackingTests, Idempotent_IsNeverStopped) {
  ServiceUnderTest billing(log_, "billing", {}, capture_.logger);
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  envelope.receptor_invocations.push_back(record_of(kUpdater, "billing", Stage::PostInboxDetached));
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(log_.count("ReadModelUpdater"), 2);
}

TEST_F(ReceptorInvocationTrackingTests,
       SuccessfulInvocation_AppendsARecordNamingReceptorStageAndService) {
  ServiceUnderTest billing(log_, "billing");
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  ASSERT_EQ(envelope.receptor_invocations.size(), 3u);  // shared, email, updater
  const auto& record = envelope.receptor_invocations[0];
  EXPECT_EQ(record.receptor_id, kShared);
  EXPECT_EQ(record.stage, Stage::PostInboxDetached);
  EXPECT_EQ(record.service_name, "billing");
  EXPECT_GT(record.completed_at.time_since_epoch().count(), 0);
  // Recording copies no text: the record refers to the registry's own id.
  const auto registered =
      billing.dispatcher().receptors_at(*envelope.payload.info(), Stage::PostInboxDetached);
  EXPECT_EQ(record.receptor_id.view().data(), registered[0]->id.data());
  // Records never leak into hop-derived facts: the source service is still the last hop's.
  EXPECT_EQ(envelope.source_service_name(), "orders");
  EXPECT_EQ(envelope.hops.size(), 1u);
}

TEST_F(ReceptorInvocationTrackingTests, RedeliveredEnvelope_FiresNothingTwice) {
  ServiceUnderTest billing(log_, "billing");
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(log_.count("SharedProjection"), 1);
  EXPECT_EQ(log_.count("ConfirmationEmail"), 1);
  EXPECT_EQ(log_.count("ReadModelUpdater"), 2);  // idempotent: every time
}

TEST_F(ReceptorInvocationTrackingTests, Track_RecordsButNeverSkips) {
  whizbang::ReceptorInvokerOptions options;
  options.guardrails.tracking = whizbang::ReceptorInvocationTracking::Track;
  ServiceUnderTest billing(log_, "billing", options);
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(log_.count("SharedProjection"), 2);
  EXPECT_EQ(envelope.receptor_invocations.size(), 6u);
}

TEST_F(ReceptorInvocationTrackingTests, Off_NeitherReadsNorWritesRecords) {
  whizbang::ReceptorInvokerOptions options;
  options.guardrails.tracking = whizbang::ReceptorInvocationTracking::Off;
  ServiceUnderTest billing(log_, "billing", options);
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  envelope.receptor_invocations.push_back(record_of(kShared, "billing", Stage::PostInboxDetached));
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(log_.count("SharedProjection"), 1);
  EXPECT_EQ(envelope.receptor_invocations.size(), 1u);
}

TEST_F(ReceptorInvocationTrackingTests, HostThatDoesNotKnowItsName_AnyRecordStopsTheReceptor) {
  ServiceUnderTest nameless(log_, "");
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  envelope.receptor_invocations.push_back(
      record_of(kShared, "orders", Stage::LocalImmediateInline));
  ASSERT_TRUE(nameless.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(log_.count("SharedProjection"), 0);
}

TEST_F(ReceptorInvocationTrackingTests, ReplacedDedupStore_IsTheOneAsked) {
  struct AlwaysFired final : whizbang::ReceptorDedupStore {
    std::optional<whizbang::ReceptorInvocationRecord> try_get_prior_invocation(
        const whizbang::Envelope&, std::string_view receptor_id,
        std::optional<std::string_view>) const override {
      ++asked;
      return record_of(std::string(receptor_id), "elsewhere", Stage::PostInboxInline);
    }
    mutable int asked = 0;
  };
  auto store = std::make_shared<AlwaysFired>();
  whizbang::ReceptorInvokerOptions options;
  options.dedup_store = store;
  ServiceUnderTest billing(log_, "billing", options);
  whizbang::Envelope envelope = envelope_from(placed("o-1"), "orders");
  ASSERT_TRUE(billing.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(store->asked, 2);  // not for the idempotent receptor
  EXPECT_EQ(log_.count("SharedProjection"), 0);
  EXPECT_EQ(log_.count("ReadModelUpdater"), 1);
}

TEST(EnvelopeReceptorDedupStoreTests,
     TryGetPriorInvocationForService_RecordFromAnotherService_ReturnsNull) {
  whizbang::EnvelopeReceptorDedupStore store;
  whizbang::Envelope envelope;
  envelope.receptor_invocations.push_back(record_of("R", "orders", Stage::LocalImmediateInline));
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, "R", "billing").has_value());
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, "R", "Orders").has_value());
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, "R", std::nullopt).has_value());
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, "Other", std::nullopt).has_value());
}

TEST(EnvelopeReceptorDedupStoreTests,
     TryGetPriorInvocationForService_RecordNamingNoService_CountsForEveryService) {
  whizbang::EnvelopeReceptorDedupStore store;
  whizbang::Envelope envelope;
  envelope.receptor_invocations.push_back(record_of("R", "", Stage::LocalImmediateInline));
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, "R", "billing").has_value());
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, "R", "orders").has_value());
}

TEST(EnvelopeReceptorDedupStoreTests, PerspectiveScopedRecord_DoesNotStopAPerMessageInvocation) {
  whizbang::EnvelopeReceptorDedupStore store;
  whizbang::Envelope envelope;
  auto record = record_of("R", "billing", Stage::PostPerspectiveInline);
  record.perspective = "shop::Summary";
  envelope.receptor_invocations.push_back(record);
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, "R", "billing").has_value());
}

}  // namespace
}  // namespace lifecycle_test
