// whizbang store inspect|stream|dead-letters|requeue over a PostgreSQL store: the same commands,
// the store named by --pg CONNINFO or by a postgresql:// location.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_test_run.hpp"
#include "fmt/format.h"
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

// A store migrated by a newer runtime: the read-only commands read what they know and say so on
// one line of stderr; requeue, which would write, refuses.
TEST_F(PostgresStoreCommandTests, NewerSchema_ReadCommandsWarnOnceAndRequeueRefuses) {
  ASSERT_TRUE(whizbang_test::postgres_admin(
      conninfo_,
      "INSERT INTO wh_schema_version (version, name, applied_at) VALUES (99, 'future', 0)"));
  const std::string warning = fmt::format(
      "whizbang: warning: store schema version 99 is newer than this tool knows ({}); output may "
      "be incomplete\n",
      PostgresWorkStore::latest_schema_version());
  for (const char* command : {"inspect", "dead-letters"}) {
    const CliRun r = run({"store", command, "--pg", conninfo_});
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
    EXPECT_EQ(r.err, warning) << command;
  }
  const CliRun stream = run({"store", "stream", "--pg", conninfo_, kOrderStream, "--json"});
  EXPECT_EQ(stream.code, 0) << stream.err;
  EXPECT_EQ(stream.err, warning);
  EXPECT_TRUE(parse_json(stream.out).IsObject()) << "the warning stays off stdout";

  const CliRun requeue = run({"store", "requeue", "--pg", conninfo_, "--all"});
  EXPECT_NE(requeue.code, 0);
  EXPECT_EQ(std::count(requeue.err.begin(), requeue.err.end(), '\n'), 1) << requeue.err;
  EXPECT_NE(requeue.err.find("schema version 99, newer than this runtime's"), std::string::npos)
      << requeue.err;
  const CliRun listed = run({"store", "dead-letters", "--pg", conninfo_});
  EXPECT_NE(listed.out.find(poisoned_.to_string()), std::string::npos) << "requeue wrote";
}

// libpq's messages run over several lines ("connection refused" and then "\tIs the server
// running on that host...", a DETAIL or HINT line, a trailing newline): the CLI's promise is one
// line on stderr.
TEST(PostgresStoreCommandErrorTests, ConnectionFailures_AreOneLineOnStderr) {
  const std::vector<std::vector<std::string>> cases = {
      // Nothing listens on port 1: refused, with libpq's second line.
      {"store", "inspect", "--pg", "host=127.0.0.1 port=1 dbname=orders connect_timeout=5"},
      {"store", "dead-letters", "postgresql://127.0.0.1:1/orders?connect_timeout=5"},
      // The run's server, a database that does not exist.
      {"store", "inspect", "--pg", whizbang_test::postgres_conninfo() + "&dbname=no_such_db"},
  };
  for (const std::vector<std::string>& args : cases) {
    const CliRun r = run(args);
    SCOPED_TRACE(args.back());
    EXPECT_NE(r.code, 0);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("whizbang: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    // Folded, not escaped: no \x0a or \x09 where libpq broke its lines.
    EXPECT_EQ(r.err.find("\\x0"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot connect to the PostgreSQL store"), std::string::npos) << r.err;
  }
}

// A statement's error keeps its SQLSTATE and its DETAIL, on the same line.
TEST_F(PostgresStoreCommandTests, ErrorWithDetail_IsOneLineAndKeepsItsSqlstate) {
  // A table of the store replaced by one whose type the inspector cannot read.
  ASSERT_TRUE(whizbang_test::postgres_admin(
      conninfo_, "DROP TABLE wh_event_store CASCADE; CREATE TABLE wh_event_store (x int)"));
  const CliRun r = run({"store", "stream", "--pg", conninfo_, kOrderStream});
  EXPECT_NE(r.code, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("[42703]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\\x0"), std::string::npos) << "escaped, not folded: " << r.err;
}

}  // namespace
}  // namespace whizbang::cli
