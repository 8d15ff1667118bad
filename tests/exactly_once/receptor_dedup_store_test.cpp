// Which receptor invocation records stop a receptor (record_counts_for), answered from the
// envelope (EnvelopeReceptorDedupStore) and from wh_receptor_invocations
// (DatabaseReceptorDedupStore over an in-memory SQLite store). docs/guide/04-exactly-once.md.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "whizbang/exactly_once/database_receptor_dedup_store.hpp"
#include "whizbang/exactly_once/receptor_dedup_store.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {
namespace {

constexpr std::string_view kMailer = "shop::Mailer";
constexpr std::string_view kAudit = "shop::Audit";

ReceptorInvocationRecord record_of(std::string_view receptor, std::string service,
                                   Stage stage = Stage::PostInboxDetached,
                                   std::string perspective = {}) {
  ReceptorInvocationRecord record;
  record.receptor_id = receptor;
  record.stage = stage;
  // Whole microseconds: what a store keeps.
  record.completed_at = from_unix_micros(1'700'000'000'000'000);
  record.duration = std::chrono::microseconds(250);
  record.service_name = std::move(service);
  record.perspective = std::move(perspective);
  return record;
}

// An envelope that came from `from_service` (one Current hop) carrying `records`.
Envelope envelope_with(std::initializer_list<ReceptorInvocationRecord> records,
                       std::string from_service = "orders") {
  Envelope envelope;
  envelope.message_id = MessageId::mint();
  MessageHop hop;
  hop.service_instance.service_name = std::move(from_service);
  hop.timestamp = Clock::now();
  envelope.hops.push_back(std::move(hop));
  for (const ReceptorInvocationRecord& record : records) {
    envelope.receptor_invocations.push_back(record);
  }
  return envelope;
}

// ---- record_counts_for ------------------------------------------------------------------------

TEST(RecordCountsForTests, RecordOfThisService_Counts) {
  EXPECT_TRUE(record_counts_for(record_of(kMailer, "billing"), "billing"));
}

TEST(RecordCountsForTests, ServiceNames_CompareCaseInsensitively) {
  EXPECT_TRUE(record_counts_for(record_of(kMailer, "Billing"), "BILLING"));
  EXPECT_TRUE(record_counts_for(record_of(kMailer, "billing"), "Billing"));
}

TEST(RecordCountsForTests, RecordOfAnotherService_DoesNotCountForThisService) {
  EXPECT_FALSE(record_counts_for(record_of(kMailer, "orders"), "billing"));
  // A service whose name starts like the record's is another service.
  EXPECT_FALSE(record_counts_for(record_of(kMailer, "bill"), "billing"));
}

TEST(RecordCountsForTests, RecordOfAnotherService_CountsForTheOnceAcrossServicesQuestion) {
  EXPECT_TRUE(record_counts_for(record_of(kMailer, "orders"), std::nullopt));
}

TEST(RecordCountsForTests, RecordNamingNoService_CountsEverywhere) {
  EXPECT_TRUE(record_counts_for(record_of(kMailer, ""), "billing"));
  EXPECT_TRUE(record_counts_for(record_of(kMailer, ""), "orders"));
  EXPECT_TRUE(record_counts_for(record_of(kMailer, ""), std::nullopt));
}

TEST(RecordCountsForTests, QuestionNamingNoService_IsAskedAcrossServices) {
  EXPECT_TRUE(record_counts_for(record_of(kMailer, "orders"), std::string_view()));
}

// ---- EnvelopeReceptorDedupStore ---------------------------------------------------------------

TEST(EnvelopeReceptorDedupStoreTests, RecordOfThisService_StopsTheReceptorHere) {
  const Envelope envelope = envelope_with({record_of(kMailer, "billing", Stage::PostInboxInline)});
  const EnvelopeReceptorDedupStore store;
  const std::optional<ReceptorInvocationRecord> prior =
      store.try_get_prior_invocation(envelope, kMailer, "billing");
  ASSERT_TRUE(prior.has_value());
  EXPECT_EQ(prior->receptor_id, kMailer);
  EXPECT_EQ(prior->service_name, "billing");
  EXPECT_EQ(prior->stage, Stage::PostInboxInline);
}

TEST(EnvelopeReceptorDedupStoreTests, RecordOfThisServiceInAnotherCase_StopsTheReceptorHere) {
  const Envelope envelope = envelope_with({record_of(kMailer, "BILLING")});
  const EnvelopeReceptorDedupStore store;
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, kMailer, "billing").has_value());
}

TEST(EnvelopeReceptorDedupStoreTests, RecordOfAnotherService_DoesNotStopAnOrdinaryReceptor) {
  const Envelope envelope = envelope_with({record_of(kMailer, "orders")});
  const EnvelopeReceptorDedupStore store;
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, "billing").has_value());
}

TEST(EnvelopeReceptorDedupStoreTests, RecordOfAnotherService_StopsAOnceAcrossServicesReceptor) {
  const Envelope envelope = envelope_with({record_of(kMailer, "orders")});
  const EnvelopeReceptorDedupStore store;
  const std::optional<ReceptorInvocationRecord> prior =
      store.try_get_prior_invocation(envelope, kMailer, std::nullopt);
  ASSERT_TRUE(prior.has_value());
  EXPECT_EQ(prior->service_name, "orders");
}

TEST(EnvelopeReceptorDedupStoreTests, RecordNamingNoService_StopsTheReceptorEverywhere) {
  const Envelope envelope = envelope_with({record_of(kMailer, "")});
  const EnvelopeReceptorDedupStore store;
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, kMailer, "billing").has_value());
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, kMailer, "orders").has_value());
  EXPECT_TRUE(store.try_get_prior_invocation(envelope, kMailer, std::nullopt).has_value());
}

TEST(EnvelopeReceptorDedupStoreTests, AnotherReceptorsRecord_NeverCounts) {
  const Envelope envelope = envelope_with({record_of(kAudit, "billing"), record_of(kAudit, "")});
  const EnvelopeReceptorDedupStore store;
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, "billing").has_value());
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, std::nullopt).has_value());
}

TEST(EnvelopeReceptorDedupStoreTests, PerspectiveScopedRecord_DoesNotStopAPerMessageInvocation) {
  const Envelope envelope = envelope_with(
      {record_of(kMailer, "billing", Stage::PostPerspectiveInline, "shop::OrderSummary")});
  const EnvelopeReceptorDedupStore store;
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, "billing").has_value());
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, std::nullopt).has_value());
}

TEST(EnvelopeReceptorDedupStoreTests, SeveralRecords_AnswersWithTheOneThatCounts) {
  const Envelope envelope =
      envelope_with({record_of(kMailer, "orders", Stage::LocalImmediateInline),
                     record_of(kAudit, "billing", Stage::PostInboxInline),
                     record_of(kMailer, "billing", Stage::PostInboxDetached)});
  const EnvelopeReceptorDedupStore store;
  const std::optional<ReceptorInvocationRecord> prior =
      store.try_get_prior_invocation(envelope, kMailer, "billing");
  ASSERT_TRUE(prior.has_value());
  EXPECT_EQ(prior->receptor_id, kMailer);
  EXPECT_EQ(prior->service_name, "billing");
  EXPECT_EQ(prior->stage, Stage::PostInboxDetached);
}

TEST(EnvelopeReceptorDedupStoreTests, HopOfThisServiceWithoutARecord_DoesNotStopTheReceptor) {
  // Hops say where the message went, not what fired there: only records count.
  const Envelope envelope = envelope_with({}, "billing");
  const EnvelopeReceptorDedupStore store;
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, "billing").has_value());
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, std::nullopt).has_value());
}

TEST(EnvelopeReceptorDedupStoreTests, RecordInvocation_LeavesTheEnvelopeAndSucceeds) {
  const Envelope envelope = envelope_with({});
  EnvelopeReceptorDedupStore store;
  EXPECT_TRUE(store.record_invocation(envelope, record_of(kMailer, "billing")).ok());
  // The envelope store keeps nothing of its own: the record rides on the envelope or nowhere.
  EXPECT_FALSE(store.try_get_prior_invocation(envelope, kMailer, "billing").has_value());
}

// ---- DatabaseReceptorDedupStore ---------------------------------------------------------------

class DatabaseReceptorDedupStoreTests : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<SqliteWorkStore>> opened = SqliteWorkStore::open(":memory:");
    ASSERT_TRUE(opened.ok()) << opened.status();
    work_store_ = *std::move(opened);
    dedup_ = std::make_unique<DatabaseReceptorDedupStore>(*work_store_);
  }

  // Records `record` for `envelope` in a transaction that commits or rolls back.
  void record_in_transaction(const Envelope& envelope, const ReceptorInvocationRecord& record,
                             bool commit) {
    Transaction tx(*work_store_);
    ASSERT_TRUE(tx.status().ok()) << tx.status();
    ASSERT_TRUE(dedup_->record_invocation(envelope, record).ok());
    if (commit) {
      ASSERT_TRUE(tx.commit().ok());
    } else {
      ASSERT_TRUE(tx.rollback().ok());
    }
  }

  // A copy of `envelope` as redelivered without its records.
  static Envelope without_records(const Envelope& envelope) {
    Envelope copy = envelope_with({});
    copy.message_id = envelope.message_id;
    return copy;
  }

  std::unique_ptr<SqliteWorkStore> work_store_;
  std::unique_ptr<DatabaseReceptorDedupStore> dedup_;
};

TEST_F(DatabaseReceptorDedupStoreTests, CommittedRecord_IsFoundForAnEnvelopeThatDoesNotCarryIt) {
  const ReceptorInvocationRecord fired = record_of(kMailer, "billing", Stage::PostInboxInline);
  const Envelope handled = envelope_with({fired});
  record_in_transaction(handled, fired, /*commit=*/true);

  const Envelope redelivered = without_records(handled);
  ASSERT_TRUE(redelivered.receptor_invocations.empty());
  const std::optional<ReceptorInvocationRecord> prior =
      dedup_->try_get_prior_invocation(redelivered, kMailer, "billing");
  ASSERT_TRUE(prior.has_value());
  EXPECT_EQ(prior->receptor_id, kMailer);
  EXPECT_EQ(prior->service_name, "billing");
  EXPECT_EQ(prior->stage, Stage::PostInboxInline);
  EXPECT_EQ(prior->completed_at, fired.completed_at);
  // The envelope store alone would have let the receptor fire again.
  EXPECT_FALSE(EnvelopeReceptorDedupStore()
                   .try_get_prior_invocation(redelivered, kMailer, "billing")
                   .has_value());
}

TEST_F(DatabaseReceptorDedupStoreTests, RolledBackRecord_IsNotFound) {
  const ReceptorInvocationRecord fired = record_of(kMailer, "billing");
  const Envelope handled = envelope_with({fired});
  record_in_transaction(handled, fired, /*commit=*/false);

  const Envelope redelivered = without_records(handled);
  EXPECT_FALSE(dedup_->try_get_prior_invocation(redelivered, kMailer, "billing").has_value());
  EXPECT_FALSE(dedup_->try_get_prior_invocation(redelivered, kMailer, std::nullopt).has_value());
  EXPECT_TRUE(work_store_->find_receptor_invocations(handled.message_id, kMailer)->empty());
}

TEST_F(DatabaseReceptorDedupStoreTests, StoredRecordOfAnotherService_StopsOnlyOnceAcrossServices) {
  const ReceptorInvocationRecord fired = record_of(kMailer, "orders");
  const Envelope handled = envelope_with({fired});
  record_in_transaction(handled, fired, /*commit=*/true);

  const Envelope redelivered = without_records(handled);
  EXPECT_FALSE(dedup_->try_get_prior_invocation(redelivered, kMailer, "billing").has_value());
  EXPECT_TRUE(dedup_->try_get_prior_invocation(redelivered, kMailer, "ORDERS").has_value());
  EXPECT_TRUE(dedup_->try_get_prior_invocation(redelivered, kMailer, std::nullopt).has_value());
}

TEST_F(DatabaseReceptorDedupStoreTests, StoredRecordOfAnotherMessageOrReceptor_DoesNotCount) {
  const ReceptorInvocationRecord fired = record_of(kMailer, "billing");
  const Envelope handled = envelope_with({fired});
  record_in_transaction(handled, fired, /*commit=*/true);

  const Envelope other_message = envelope_with({});
  EXPECT_FALSE(dedup_->try_get_prior_invocation(other_message, kMailer, "billing").has_value());
  const Envelope redelivered = without_records(handled);
  EXPECT_FALSE(dedup_->try_get_prior_invocation(redelivered, kAudit, "billing").has_value());
}

TEST_F(DatabaseReceptorDedupStoreTests, StoredPerspectiveRecord_DoesNotStopAPerMessageInvocation) {
  const ReceptorInvocationRecord fired =
      record_of(kMailer, "billing", Stage::PostPerspectiveInline, "shop::OrderSummary");
  const Envelope handled = envelope_with({fired});
  record_in_transaction(handled, fired, /*commit=*/true);

  const Envelope redelivered = without_records(handled);
  EXPECT_EQ(work_store_->find_receptor_invocations(handled.message_id, kMailer)->size(), 1u);
  EXPECT_FALSE(dedup_->try_get_prior_invocation(redelivered, kMailer, "billing").has_value());
}

TEST_F(DatabaseReceptorDedupStoreTests, RecordOnTheEnvelope_AnswersWithoutAStoredRow) {
  const Envelope carried = envelope_with({record_of(kMailer, "billing")});
  const std::optional<ReceptorInvocationRecord> prior =
      dedup_->try_get_prior_invocation(carried, kMailer, "billing");
  ASSERT_TRUE(prior.has_value());
  EXPECT_EQ(prior->service_name, "billing");
  EXPECT_TRUE(work_store_->find_receptor_invocations(carried.message_id, kMailer)->empty());
}

}  // namespace
}  // namespace whizbang
