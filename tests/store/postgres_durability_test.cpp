// What a PostgreSQL commit waits for at Durability::Full: stored rows and completions are
// flushed before the call returns; a cycle that only claims is not (docs/guide/12-postgresql.md).
// A statement trigger on wh_outbox records the synchronous_commit each write ran under.
#include <gtest/gtest.h>

#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace store_test {
namespace {

using namespace whizbang;

constexpr const char* kRecordCommitModes =
    "CREATE TABLE commit_modes (seq bigserial PRIMARY KEY, op text, mode text);"
    "CREATE FUNCTION record_commit_mode() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "INSERT INTO commit_modes (op, mode) VALUES (TG_OP, current_setting('synchronous_commit'));"
    " RETURN NULL; END $$;"
    "CREATE TRIGGER record_commit_mode AFTER INSERT OR UPDATE OR DELETE ON wh_outbox "
    "FOR EACH STATEMENT EXECUTE FUNCTION record_commit_mode()";

// A FULL store holding one outbox row whose storing lease has lapsed; its writes to wh_outbox
// are recorded with the synchronous_commit they ran under.
class PostgresDurabilityTests : public ::testing::Test {
 protected:
  void SetUp() override {
    // The run's server commits without flushing (tests/support/postgres-server.sh): this store's
    // sessions flush, as a production server's do.
    conninfo_ = whizbang_test::fresh_postgres_schema({"synchronous_commit=on"});
    ASSERT_FALSE(conninfo_.empty());
    options_.instance = instance("orders");
    options_.now = clock_.fn();
    auto store = PostgresWorkStore::open(conninfo_, options_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    ASSERT_TRUE(whizbang_test::postgres_admin(conninfo_, kRecordCommitModes));
    ASSERT_TRUE(store_->store_outbox_messages({&message_, 1}).ok());
    EXPECT_EQ(writes_since(0, "on"), 1) << "a stored row is flushed when the call returns";
    clock_.advance(options_.lease_duration + std::chrono::seconds(1));
  }

  // How many writes after `seq` ran with synchronous_commit `mode`.
  long writes_since(long seq, const std::string& mode) const {
    return whizbang_test::postgres_scalar(
        conninfo_, "SELECT count(*) FROM commit_modes WHERE seq > " + std::to_string(seq) +
                       " AND mode = '" + mode + "'");
  }
  long last_write() const {
    return whizbang_test::postgres_scalar(conninfo_,
                                          "SELECT coalesce(max(seq), 0) FROM commit_modes");
  }

  std::string conninfo_;
  ManualClock clock_;
  StoreOptions options_;
  std::unique_ptr<PostgresWorkStore> store_;
  const OutboxMessage message_ = outbox_message(OrderCreated{"o", 1}, "orders");
};

// At FULL, what a caller is promised durable is flushed before the call returns; a cycle that
// only claims is not: undone by a server crash, it is a lease that lapsed.
TEST_F(PostgresDurabilityTests, AtFull_StoredRowsAndCompletionsAreSynced_AClaimAloneIsNot) {
  long before = last_write();
  auto claimed = store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_GE(writes_since(before, "off"), 1) << "the claim waits for no flush";
  EXPECT_EQ(writes_since(before, "on"), 0);

  WorkBatchRequest completing;
  completing.completions.push_back(
      {WorkSource::Outbox, message_.message_id, MessageStatus::Published});
  before = last_write();
  ASSERT_TRUE(store_->process_work_batch(completing).ok());
  EXPECT_GE(writes_since(before, "on"), 1) << "a completion is flushed when the call returns";
  EXPECT_EQ(writes_since(before, "off"), 0) << "the claim's setting ended with its transaction";
}

TEST_F(PostgresDurabilityTests, ClaimInsideTheCallersTransaction_IsSyncedWithIt) {
  const long before = last_write();
  ASSERT_TRUE(store_->begin().ok());
  auto claimed = store_->process_work_batch({});
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  ASSERT_TRUE(store_->commit().ok());
  EXPECT_GE(writes_since(before, "on"), 1);
  EXPECT_EQ(writes_since(before, "off"), 0);
}

}  // namespace
}  // namespace store_test
