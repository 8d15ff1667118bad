// ReceptorFiringLockInTests: a receptor fires exactly once per message lifetime across the
// stages it registered for; DuplicateReceptorFireExceptionTests; the invoker's logs
// (docs/guide/04-exactly-once.md; EventIds 16-18 in docs/guide/09-diagnostics.md).
#include "fixture.hpp"

namespace lifecycle_test {
namespace {

using whizbang::Stage;

PaymentCaptured captured() {
  PaymentCaptured event;
  event.order_id = "p-1";
  return event;
}

class ReceptorFiringLockInTests : public ::testing::Test {
 protected:
  FireLog log_;
  LogCapture capture_;
};

TEST_F(ReceptorFiringLockInTests, ReceptorAtTwoStages_FiresOnlyAtTheFirstItReaches) {
  ServiceUnderTest payments(log_, "payments", {}, capture_.logger);
  whizbang::Envelope envelope = envelope_from(captured(), "payments");
  ASSERT_TRUE(payments.invoke(envelope, Stage::LocalImmediateInline).ok());
  auto second = payments.invoke(envelope, Stage::PreOutboxInline);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(log_.count("TwoStageAudit"), 1);
  EXPECT_THAT(second->skipped, ::testing::ElementsAre("lifecycle_test::TwoStageAudit"));
  EXPECT_EQ(capture_.count("[EventId 18 ReceptorAlreadyFiredSkip]"), 1);
}

TEST_F(ReceptorFiringLockInTests, SameStageTwice_FiresOnce) {
  ServiceUnderTest payments(log_, "payments");
  whizbang::Envelope envelope = envelope_from(captured(), "orders");
  ASSERT_TRUE(payments.invoke(envelope, Stage::PostInboxInline).ok());
  ASSERT_TRUE(payments.invoke(envelope, Stage::PostInboxInline).ok());
  EXPECT_EQ(log_.count("InboxObserver"), 1);
}

TEST_F(ReceptorFiringLockInTests, FiringAndFired_AreLoggedAtDebugAroundEachInvocation) {
  ServiceUnderTest payments(log_, "payments", {}, capture_.logger);
  whizbang::Envelope envelope = envelope_from(captured(), "orders");
  ASSERT_TRUE(payments.invoke(envelope, Stage::PostInboxInline).ok());
  // InboxObserver and ReplayedProjection fire at PostInboxInline.
  EXPECT_EQ(capture_.count("[debug] [EventId 16 ReceptorFiring]"), 2);
  EXPECT_EQ(capture_.count("[debug] [EventId 17 ReceptorFired]"), 2);
}

TEST_F(ReceptorFiringLockInTests, ThrowingReceptor_LogsFiredAtErrorAndWritesNoRecord) {
  ServiceUnderTest service(log_, "svc", {}, capture_.logger);
  whizbang::Envelope envelope = envelope_from(Explode{}, "elsewhere");
  // The exception comes back as a status naming the receptor and carrying its text.
  absl::StatusOr<whizbang::InvokeReport> report = service.invoke(envelope, Stage::PostInboxInline);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()),
              testing::HasSubstr("receptor lifecycle_test::Exploder threw: boom"));
  EXPECT_EQ(capture_.count("[error] [EventId 17 ReceptorFired]"), 1);
  EXPECT_EQ(capture_.count("[debug] [EventId 17 ReceptorFired]"), 0);
  EXPECT_TRUE(envelope.receptor_invocations.empty());
  // Not recorded, so a retry fires it again.
  EXPECT_FALSE(service.invoke(envelope, Stage::PostInboxInline).ok());
  EXPECT_EQ(log_.count("Exploder"), 2);
}

TEST_F(ReceptorFiringLockInTests, DetachedStage_RunsOnTheExecutorAndIsRecordedWhenScheduled) {
  whizbang::ThreadPoolExecutor executor(1);
  whizbang::ReceptorInvokerOptions options;
  options.executor = &executor;
  ServiceUnderTest service(log_, "billing", options);
  OrderPlaced event;
  whizbang::Envelope envelope = envelope_from(event, "orders");
  ASSERT_TRUE(service.invoke(envelope, Stage::PostInboxDetached).ok());
  EXPECT_EQ(envelope.receptor_invocations.size(), 3u);  // recorded at scheduling time
  executor.drain();
  EXPECT_EQ(log_.count("SharedProjection"), 1);
  // A second delivery in this process is already stopped.
  ASSERT_TRUE(service.invoke(envelope, Stage::PostInboxDetached).ok());
  executor.drain();
  EXPECT_EQ(log_.count("SharedProjection"), 1);
  EXPECT_EQ(log_.count("ReadModelUpdater"), 2);
}

TEST_F(ReceptorFiringLockInTests, DetachedStage_RunsWithTheEnvelopesAndTheCallersContext) {
  whizbang::ThreadPoolExecutor executor(1);
  whizbang::ReceptorInvokerOptions options;
  options.executor = &executor;
  ServiceUnderTest service(log_, "billing", options);
  whizbang::Envelope envelope = envelope_from(OrderPlaced{}, "orders");
  envelope.hops.front().scope = whizbang::SecurityScope{"alice", "acme"};
  ASSERT_TRUE(service.invoke(envelope, Stage::PostInboxDetached).ok());
  executor.drain();
  EXPECT_EQ(log_.last_user("SharedProjection"), "alice");  // from the envelope, on another thread

  // An explicit system context around the call is copied into the detached work.
  whizbang::Envelope second = envelope_from(OrderPlaced{}, "orders");
  whizbang::SecurityContext system;
  system.type = whizbang::SecurityContextType::System;
  system.user_id = "SYSTEM";
  {
    whizbang::ScopedSecurityContext scope(system);
    ASSERT_TRUE(service.invoke(second, Stage::PostInboxDetached).ok());
  }  // the work may run after the caller's scope ended: it holds a copy
  executor.drain();
  EXPECT_EQ(log_.last_user("SharedProjection"), "SYSTEM");
}

TEST(DuplicateReceptorFireExceptionTests,
     OnDoubleFireThrow_SecondFireThrowsNamingReceptorAndMessage) {
  FireLog log;
  whizbang::ReceptorInvokerOptions options;
  options.guardrails.on_double_fire = whizbang::OnDoubleFire::Throw;
  ServiceUnderTest payments(log, "payments", options);
  whizbang::Envelope envelope = envelope_from(captured(), "payments");
  ASSERT_TRUE(payments.invoke(envelope, Stage::LocalImmediateInline).ok());
  try {
    (void)payments.invoke(envelope, Stage::PreOutboxInline);
    FAIL() << "expected DuplicateReceptorFireException";
  } catch (const whizbang::DuplicateReceptorFireException& error) {
    EXPECT_EQ(error.receptor_id(), "lifecycle_test::TwoStageAudit");
    EXPECT_EQ(error.message_id(), envelope.message_id);
    EXPECT_EQ(error.stage(), Stage::PreOutboxInline);
    EXPECT_EQ(error.prior_stage(), Stage::LocalImmediateInline);
    EXPECT_EQ(error.prior_service(), "payments");
    EXPECT_NE(std::string(error.what()).find("TwoStageAudit"), std::string::npos);
  }
  EXPECT_EQ(log.count("TwoStageAudit"), 1);
}

TEST(DuplicateReceptorFireExceptionTests, OnDoubleFireThrow_IdempotentReceptorNeverThrows) {
  FireLog log;
  whizbang::ReceptorInvokerOptions options;
  options.guardrails.on_double_fire = whizbang::OnDoubleFire::Throw;
  ServiceUnderTest billing(log, "billing", options);
  whizbang::Envelope envelope = envelope_from(OrderPlaced{}, "orders");
  envelope.receptor_invocations.push_back(
      record_of("lifecycle_test::ReadModelUpdater", "billing", Stage::PostInboxDetached));
  envelope.receptor_invocations.push_back(
      record_of("lifecycle_test::SharedProjection", "orders", Stage::LocalImmediateInline));
  envelope.receptor_invocations.push_back(
      record_of("lifecycle_test::ConfirmationEmail", "billing", Stage::PostInboxDetached));
  // ConfirmationEmail fired in this service: that one throws.
  EXPECT_THROW((void)billing.invoke(envelope, Stage::PostInboxDetached),
               whizbang::DuplicateReceptorFireException);
  EXPECT_EQ(log.count("SharedProjection"), 1);  // ran before the duplicate was reached
}

}  // namespace
}  // namespace lifecycle_test
