// The PostgreSQL backend's pipeline: statements sent in one round trip, results read in order.
#include <gtest/gtest.h>

#include "postgres/sql/coordination_sql.hpp"
#include "postgres_connection.hpp"

namespace store_test {
namespace {

using whizbang::postgres::Connection;
using whizbang::postgres::Pipeline;
using whizbang::postgres::Query;
namespace pg = whizbang::postgres::sql;

std::string setting(Connection& connection, const std::string& name) {
  Query show(connection, "SELECT current_setting('" + name + "')");
  const absl::StatusOr<bool> row = show.step();
  EXPECT_TRUE(row.ok() && *row) << name;
  return row.ok() && *row ? show.text(0) : std::string();
}

TEST(PostgresPipelineTests, Statements_AnswerInOrderWithTheirOwnResults) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(connection->exec("CREATE TABLE t (id integer PRIMARY KEY)").ok());
  Pipeline pipeline(*connection);
  std::vector<Query*> inserts;
  for (int id : {1, 2, 1, 3}) {
    Query& insert = pipeline.add("INSERT INTO t VALUES ($1::integer) ON CONFLICT DO NOTHING");
    insert.bind_int(1, id);
    inserts.push_back(&insert);
  }
  Query& count = pipeline.add("SELECT count(*) FROM t");
  ASSERT_TRUE(pipeline.run().ok());
  EXPECT_EQ(inserts[0]->changes(), 1);
  EXPECT_EQ(inserts[1]->changes(), 1);
  EXPECT_EQ(inserts[2]->changes(), 0);  // the duplicate
  EXPECT_EQ(inserts[3]->changes(), 1);
  ASSERT_TRUE(*count.step());
  EXPECT_EQ(count.int64(0), 3);  // a later statement sees the earlier ones' rows
}

TEST(PostgresPipelineTests, FailingStatement_IsReportedAndTheConnectionStaysUsable) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  Pipeline failing(*connection);
  failing.add("SELECT 1");
  Query& divide = failing.add("SELECT 1 / $1::integer");
  divide.bind_int(1, 0);
  failing.add("SELECT 3");
  const absl::Status status = failing.run();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("division by zero"), std::string::npos) << status;

  Pipeline next(*connection);
  Query& answer = next.add("SELECT 40 + $1::integer");
  answer.bind_int(1, 2);
  ASSERT_TRUE(next.run().ok());
  ASSERT_TRUE(*answer.step());
  EXPECT_EQ(answer.int64(0), 42);
}

TEST(PostgresPipelineTests, TransactionBegunWithTheFirstStatement_RollsBackAsAWhole) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(connection->exec("CREATE TABLE t (id integer PRIMARY KEY)").ok());
  connection->begin_with_next_statement();
  Pipeline pipeline(*connection);
  pipeline.add("INSERT INTO t VALUES (1)");
  ASSERT_TRUE(pipeline.run().ok());
  ASSERT_TRUE(connection->finish(/*commit=*/false).ok());
  Query count(*connection, "SELECT count(*) FROM t");
  ASSERT_TRUE(*count.step());
  EXPECT_EQ(count.int64(0), 0);

  connection->begin_with_next_statement();  // ended before any statement: never sent
  EXPECT_TRUE(connection->finish(/*commit=*/true).ok());
}

TEST(PostgresPipelineTests, DeferredSavepoints_TravelWithTheNextStatementInOrder) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(connection->exec("CREATE TABLE t (id integer PRIMARY KEY)").ok());
  auto insert = [&](int id) {
    Query query(*connection, "INSERT INTO t VALUES ($1::integer)");
    query.bind_int(1, id);
    return query.run();
  };
  connection->begin_with_next_statement();
  ASSERT_TRUE(insert(1).ok());
  connection->defer("SAVEPOINT s");
  ASSERT_TRUE(insert(2).ok());
  connection->defer("ROLLBACK TO SAVEPOINT s");
  connection->defer("RELEASE SAVEPOINT s");
  ASSERT_TRUE(insert(3).ok());
  ASSERT_TRUE(connection->finish(/*commit=*/true).ok());
  Query ids(*connection, "SELECT string_agg(id::text, ',' ORDER BY id) FROM t");
  ASSERT_TRUE(*ids.step());
  EXPECT_EQ(ids.text(0), "1,3");  // 2 was rolled back to the savepoint
}

TEST(PostgresPipelineTests, DeferredStatementThatFails_FailsTheNextStatement) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  connection->begin_with_next_statement();
  connection->defer("RELEASE SAVEPOINT never_made");
  Query one(*connection, "SELECT 1");
  const absl::Status status = one.run();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("never_made"), std::string::npos) << status;
  EXPECT_TRUE(connection->finish(/*commit=*/false).ok());
  Query next(*connection, "SELECT 2");
  EXPECT_TRUE(next.run().ok()) << "the connection is usable after the rollback";
}

// The store plans its claims to walk indexes (coordination_sql.hpp, kPlanByIndexes, around
// them): the statements after them, in the same transaction or later, plan under the session's
// own settings, the application's SET and SET LOCAL among them. Put back by RESET, an
// application's SET was lost at the store's next claim.
TEST(PostgresPipelineTests,
     PlannedByIndexes_OnlyTheSurroundedStatements_TheApplicationsSettingsAfter) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  // The application's own settings: one for the session, one for its transaction.
  ASSERT_TRUE(connection->exec("SET enable_seqscan = off").ok());
  connection->begin_with_next_statement();
  ASSERT_TRUE(Query(*connection, "SET LOCAL enable_sort = off").run().ok());
  Pipeline claim(*connection);
  claim.surround(pg::kPlanByIndexes, pg::kAfterPlanByIndexes);
  Query& inside = claim.add(
      "SELECT current_setting('enable_hashjoin'), current_setting('enable_bitmapscan'), "
      "current_setting('enable_mergejoin')");
  ASSERT_TRUE(claim.run().ok());
  ASSERT_TRUE(*inside.step());
  EXPECT_EQ(inside.text(0), "off");
  EXPECT_EQ(inside.text(1), "off");
  EXPECT_EQ(inside.text(2), "off");

  // Later in the same transaction: each as it was before the claim.
  EXPECT_EQ(setting(*connection, "enable_hashjoin"), "on");
  EXPECT_EQ(setting(*connection, "enable_bitmapscan"), "on");
  EXPECT_EQ(setting(*connection, "enable_mergejoin"), "on");
  EXPECT_EQ(setting(*connection, "enable_sort"), "off");
  EXPECT_EQ(setting(*connection, "enable_seqscan"), "off");
  ASSERT_TRUE(connection->finish(/*commit=*/true).ok());
  // After the commit: SET LOCAL ended with its transaction, SET lasts as long as the session.
  EXPECT_EQ(setting(*connection, "enable_sort"), "on");
  EXPECT_EQ(setting(*connection, "enable_seqscan"), "off");

  // A claim in no transaction of the application's (its pipeline's own): the same.
  Pipeline alone(*connection);
  alone.surround(pg::kPlanByIndexes, pg::kAfterPlanByIndexes);
  alone.add("SELECT 1");
  ASSERT_TRUE(alone.run().ok());
  EXPECT_EQ(setting(*connection, "enable_seqscan"), "off");
  EXPECT_EQ(setting(*connection, "enable_hashjoin"), "on");
}

}  // namespace
}  // namespace store_test
