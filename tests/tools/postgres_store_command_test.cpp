// whizbang store inspect|stream|dead-letters|requeue over a PostgreSQL store: the same commands,
// the store named by --pg CONNINFO or by a postgresql:// location.
#include <gtest/gtest.h>

#include "cli_test_run.hpp"
#include "rapidjson/document.h"
#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace whizbang::cli {
namespace {

using store_test::OrderCreated;
using store_test::outbox_message;
using store_test::ShipOrderCommand;
using test::CliRun;
using test::parse_json;
using test::run;

constexpr const char* kOrderStream = "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356";

class PostgresStoreCommandTests : public ::testing::Test {
 protected:
  // Two events on kOrderStream appended to the event store, one command that failed for good.
  void SetUp() override {
    conninfo_ = whizbang_test::fresh_postgres_schema();
    ASSERT_FALSE(conninfo_.empty());
    auto store = PostgresWorkStore::open(conninfo_);
    ASSERT_TRUE(store.ok()) << store.status();
    const Uuid stream = *Uuid::parse(kOrderStream);
    std::vector<OutboxMessage> outbox = {
        outbox_message(OrderCreated{"o-1", 1}, std::nullopt, stream),
        outbox_message(OrderCreated{"o-2", 2}, std::nullopt, stream),
        outbox_message(ShipOrderCommand{"o-1"}, "shipping")};
    poisoned_ = outbox.back().message_id;
    ASSERT_TRUE((*store)->store_outbox_messages(outbox).ok());
    WorkBatchRequest request;
    request.failures.push_back({WorkSource::Outbox, poisoned_, MessageStatus::Stored, "no route",
                                FailureReason::Unknown,
                                /*dead_letter=*/true});
    ASSERT_TRUE((*store)->process_work_batch(request).ok());
  }

  std::string conninfo_;
  MessageId poisoned_;
};

TEST_F(PostgresStoreCommandTests, Inspect_WithPg_CountsEveryTableAndNamesNoConninfo) {
  const CliRun r = run({"store", "inspect", "--pg", conninfo_, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const rapidjson::Document json = parse_json(r.out);
  ASSERT_TRUE(json.IsObject());
  EXPECT_EQ(json["schema_version"].GetInt(), PostgresWorkStore::latest_schema_version());
  EXPECT_EQ(json["counts"]["outbox"].GetInt64(), 3);
  EXPECT_EQ(json["counts"]["event_store"].GetInt64(), 2);
  EXPECT_STREQ(json["event_store"][0]["stream_id"].GetString(), kOrderStream);
  EXPECT_EQ(r.out.find("host="), std::string::npos) << "the conninfo is printed";

  const CliRun text = run({"store", "inspect", conninfo_});  // a postgresql:// location: no --pg
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("PostgreSQL store (database 'whizbang_test'"), std::string::npos)
      << text.out;
}

TEST_F(PostgresStoreCommandTests, Stream_ListsTheEventsInVersionOrder) {
  const CliRun r = run({"store", "stream", "--pg", conninfo_, kOrderStream, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const rapidjson::Document json = parse_json(r.out);
  ASSERT_EQ(json["events"].Size(), 2u);
  EXPECT_EQ(json["events"][0]["version"].GetInt64(), 1);
  EXPECT_EQ(json["events"][1]["version"].GetInt64(), 2);
}

TEST_F(PostgresStoreCommandTests, DeadLettersThenRequeue_TheDeadLetterIsDueAgain) {
  const CliRun listed = run({"store", "dead-letters", "--pg", conninfo_});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("dead letters: 1"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find(poisoned_.to_string()), std::string::npos) << listed.out;

  const CliRun requeued = run({"store", "requeue", "--pg", conninfo_, poisoned_.to_string()});
  ASSERT_EQ(requeued.code, 0) << requeued.err;
  EXPECT_EQ(requeued.out, "requeued 1 dead letter\n");
  const CliRun after = run({"store", "dead-letters", "--pg", conninfo_});
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_NE(after.out.find("no dead letters"), std::string::npos) << after.out;
}

TEST_F(PostgresStoreCommandTests, SchemaWithoutAStore_IsOneLineExit2AndCreatesNothing) {
  const std::string empty = whizbang_test::fresh_postgres_schema();
  for (const char* command : {"inspect", "dead-letters"}) {
    const CliRun r = run({"store", command, "--pg", empty});
    EXPECT_EQ(r.code, 2) << command << ": " << r.out;
    EXPECT_NE(r.err.find("holds no Whizbang store"), std::string::npos) << r.err;
  }
  const CliRun requeue = run({"store", "requeue", "--pg", empty, "--all"});
  EXPECT_EQ(requeue.code, 2);
  // Nothing was migrated into the empty schema.
  const CliRun again = run({"store", "inspect", "--pg", empty});
  EXPECT_NE(again.err.find("holds no Whizbang store"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace whizbang::cli
