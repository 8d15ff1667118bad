// The PostgreSQL backend's pipeline: statements sent in one round trip, results read in order.
#include <gtest/gtest.h>

#include "postgres_connection.hpp"

namespace store_test {
namespace {

using whizbang::postgres::Pipeline;
using whizbang::postgres::Query;

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

}  // namespace
}  // namespace store_test
