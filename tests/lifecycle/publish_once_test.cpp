// Publish once (docs/guide/17-your-data.md): send and publish from your own code with an
// idempotency key. A retried request (the client did not see the reply, the process crashed
// after its commit) dispatches nothing again: one handling, one outbox row, one row of the
// request's own, and a receipt that says `duplicate`. Before, every call minted a fresh id.
#include <whizbang/ids/derived_identity.hpp>
#include <whizbang/store/sql_session.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>

#include "host_fixture.hpp"
#include "support/temp_dir.hpp"

namespace lifecycle_test {
namespace {

using whizbang::IdempotencyKey;

class PublishOnceTests : public ::testing::Test {
 protected:
  FireLog log_;
  whizbang::InProcessTransport transport_;
};

PlaceOrder place(std::string id) {
  PlaceOrder command;
  command.order_id = std::move(id);
  return command;
}

TEST_F(PublishOnceTests, SendRetriedFiveTimes_OneHandling_TheSameId) {
  Service orders(log_, transport_, "orders");
  const IdempotencyKey key{"request-7"};
  auto first = orders.host->dispatcher().send(place("o-1"), key);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->duplicate);
  EXPECT_EQ(first->message_id, whizbang::DispatchKeyIdentity::derive(
                                   "orders", "lifecycle_test::PlaceOrder", "request-7"));
  for (int retry = 0; retry < 4; ++retry) {
    auto again = orders.host->dispatcher().send(place("o-1"), key);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(again->duplicate);
    EXPECT_EQ(again->message_id, first->message_id);
    EXPECT_EQ(again->status, first->status);
  }
  settle(orders, orders);
  EXPECT_EQ(log_.count("SharedProjection", "orders"), 1) << "the order was placed once";

  auto other = orders.host->dispatcher().send(place("o-2"), IdempotencyKey{"request-8"});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(other->duplicate) << "another key is another request";
}

TEST_F(PublishOnceTests, PublishRetried_OneOutboxRow_OneLocalHandling) {
  Service orders(log_, transport_, "orders");
  const IdempotencyKey key{"import-2026-12-05"};
  whizbang::MessageId id;
  for (int call = 0; call < 5; ++call) {
    auto receipt = orders.host->dispatcher().publish(placed("o-9"), key);
    ASSERT_TRUE(receipt.ok()) << receipt.status();
    EXPECT_EQ(receipt->duplicate, call > 0);
    id = receipt->message_id;
  }
  settle(orders, orders);
  EXPECT_EQ(transport_.publish_count(id), 1u);
  EXPECT_EQ(log_.count("SharedProjection", "orders"), 1);
}

// The request's own row and its command commit together; a retry finds the key recorded and
// writes neither again: the request sends first and writes its row only for a new dispatch.
TEST_F(PublishOnceTests, RequestRowAndCommand_RetriedAfterItsCommit_OneOfEach) {
  whizbang_test::TempDir dir;
  whizbang::StoreOptions store_options;
  store_options.instance.service_name = "orders";
  auto store = whizbang::SqliteWorkStore::open(dir.file("orders.db"), store_options);
  ASSERT_TRUE(store.ok()) << store.status();
  Service orders(log_, transport_, "orders", {}, *std::move(store));
  {
    whizbang::Transaction schema(*orders.store);
    ASSERT_TRUE(schema.sql()
                    .value()
                    ->execute("CREATE TABLE requests (id TEXT PRIMARY KEY, order_id TEXT)")
                    .ok());
    ASSERT_TRUE(schema.commit().ok());
  }
  const auto handle_request = [&](const std::string& request_id) -> absl::Status {
    whizbang::Transaction transaction(*orders.store);
    auto receipt = orders.host->dispatcher().send(place("o-3"), IdempotencyKey{request_id});
    if (!receipt.ok()) return receipt.status();
    if (receipt->duplicate) return absl::OkStatus();  // done by the first attempt
    auto written = transaction.sql().value()->execute(
        "INSERT INTO requests (id, order_id) VALUES ($1, $2)", {request_id, "o-3"});
    if (!written.ok()) return written.status();
    return transaction.commit();
  };
  for (int attempt = 0; attempt < 5; ++attempt) {
    ASSERT_TRUE(handle_request("req-31").ok()) << attempt;
  }
  settle(orders, orders);
  EXPECT_EQ(log_.count("SharedProjection", "orders"), 1);
  whizbang::Transaction check(*orders.store);
  auto rows = check.sql().value()->query("SELECT COUNT(*) FROM requests");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows->rows[0].int64(0), 1);
}

// A request that failed before its commit recorded nothing: its retry dispatches.
TEST_F(PublishOnceTests, AttemptRolledBack_TheRetryDispatches) {
  Service orders(log_, transport_, "orders");
  {
    whizbang::Transaction transaction(*orders.store);
    auto receipt = orders.host->dispatcher().send(place("o-4"), IdempotencyKey{"req-40"});
    ASSERT_TRUE(receipt.ok()) << receipt.status();
    ASSERT_TRUE(transaction.rollback().ok());  // the request failed after sending
  }
  auto retried = orders.host->dispatcher().send(place("o-4"), IdempotencyKey{"req-40"});
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_FALSE(retried->duplicate);
}

TEST_F(PublishOnceTests, EmptyKey_OrNoUnitOfWork_AClearError) {
  Service orders(log_, transport_, "orders");
  auto empty = orders.host->dispatcher().send(place("o-5"), IdempotencyKey{""});
  EXPECT_TRUE(absl::IsInvalidArgument(empty.status())) << empty.status();

  whizbang::ServiceRegistry services;
  Recorder recorder(log_, "bare");
  services.add<Recorder>(recorder);
  whizbang::MemoryWorkStore store;
  whizbang::DispatcherOptions options;
  options.self.service_name = "bare";
  options.store = &store;  // but no unit of work to record the key in with the dispatch
  auto bare = whizbang::Dispatcher::create(test_registry(), services, options);
  ASSERT_TRUE(bare.ok()) << bare.status();
  auto keyed = (*bare)->send(place("o-6"), IdempotencyKey{"req-60"});
  EXPECT_TRUE(absl::IsFailedPrecondition(keyed.status())) << keyed.status();
}

}  // namespace
}  // namespace lifecycle_test
