// libpq's multi-line messages become one-line Status messages (store/postgres/error_text.hpp):
// a log line or the CLI's error line is one line, and the SQLSTATE stays in it.
#include "store/postgres/error_text.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/postgres_schema.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace store_test {
namespace {

TEST(PostgresErrorTextTests, OneLine_JoinsTrimmedLinesAndDropsEmptyOnes) {
  EXPECT_EQ(whizbang::postgres::one_line(
                "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n"
                "\tIs the server running on that host and accepting TCP/IP connections?\n"),
            "connection to server at \"127.0.0.1\", port 1 failed: Connection refused; Is the "
            "server running on that host and accepting TCP/IP connections?");
  EXPECT_EQ(whizbang::postgres::one_line("ERROR:  x\r\nDETAIL:  y\n\n  \nHINT:  z\n"),
            "ERROR:  x; DETAIL:  y; HINT:  z");
  EXPECT_EQ(whizbang::postgres::one_line("one line"), "one line");
  EXPECT_EQ(whizbang::postgres::one_line("\n"), "");
}

TEST(PostgresErrorTextTests, RefusedConnection_IsOneLine) {
  auto store =
      whizbang::PostgresWorkStore::open("host=127.0.0.1 port=1 dbname=x connect_timeout=5");
  ASSERT_FALSE(store.ok());
  const std::string message(store.status().message());
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.find('\t'), std::string::npos) << message;
  EXPECT_NE(message.find("Connection refused; Is the server running"), std::string::npos)
      << message;
}

TEST(PostgresErrorTextTests, ResultError_IsOneLineWithItsDetailAndNoPositionLines) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(conninfo.c_str()), &PQfinish);
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  const auto error_of = [&](const char* sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), sql), &PQclear);
    return whizbang::postgres::result_error_text(result.get());
  };
  // The server's message has a DETAIL line naming the key.
  EXPECT_EQ(error_of("CREATE TABLE t (k int PRIMARY KEY); INSERT INTO t VALUES (1), (1)"),
            "ERROR: duplicate key value violates unique constraint \"t_pkey\"; DETAIL: Key "
            "(k)=(1) already exists.");
  // libpq's text adds "LINE 1: SELEC 1" and a caret line; the fields do not.
  EXPECT_EQ(error_of("SELEC 1"), "ERROR: syntax error at or near \"SELEC\"");
}

}  // namespace
}  // namespace store_test
