// ReadTransaction (store_transactions.hpp): reads that agree with each other, one snapshot,
// while another connection of the same database commits; and no writer kept waiting (SQLite's
// write lock is not taken, as a `Transaction` would).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "store_backends.hpp"
#include "whizbang/store/sql_session.hpp"

namespace store_test {
namespace {

using whizbang::ReadTransaction;
using whizbang::SqlRows;
using whizbang::SqlSession;
using whizbang::Transaction;
using whizbang::WorkStore;

// Two store objects (two connections) on one database.
struct SqliteDatabase {
  static std::pair<std::unique_ptr<WorkStore>, std::unique_ptr<WorkStore>> open(
      const TempDir& dir) {
    auto first = whizbang::SqliteWorkStore::open(dir.file("store.db"), {});
    auto second = whizbang::SqliteWorkStore::open(dir.file("store.db"), {});
    EXPECT_TRUE(first.ok() && second.ok());
    if (!first.ok() || !second.ok()) return {};
    return {*std::move(first), *std::move(second)};
  }
};
struct PostgresDatabase {
  static std::pair<std::unique_ptr<WorkStore>, std::unique_ptr<WorkStore>> open(const TempDir&) {
    const std::string conninfo = whizbang_test::fresh_postgres_schema();
    if (conninfo.empty()) return {};
    auto first = whizbang::PostgresWorkStore::open(conninfo, {});
    auto second = whizbang::PostgresWorkStore::open(conninfo, {});
    EXPECT_TRUE(first.ok() && second.ok());
    if (!first.ok() || !second.ok()) return {};
    return {*std::move(first), *std::move(second)};
  }
};

template <class Database>
class ReadTransactionTests : public ::testing::Test {
 protected:
  void SetUp() override {
    std::tie(reader_, writer_) = Database::open(dir_);
    ASSERT_NE(reader_, nullptr);
    ASSERT_TRUE(write("CREATE TABLE accounts (id TEXT PRIMARY KEY, balance BIGINT NOT NULL)").ok());
    ASSERT_TRUE(write("INSERT INTO accounts (id, balance) VALUES ('alice', 100)").ok());
  }

  // Runs `statement` on the writer's connection in a transaction of its own, and commits.
  absl::Status write(const std::string& statement) {
    Transaction transaction(*writer_);
    absl::StatusOr<SqlSession*> sql = transaction.sql();
    if (!sql.ok()) return sql.status();
    if (auto changed = (*sql)->execute(statement); !changed.ok()) return changed.status();
    return transaction.commit();
  }
  static std::int64_t balance(SqlSession& sql) {
    absl::StatusOr<SqlRows> rows = sql.query("SELECT balance FROM accounts WHERE id = 'alice'");
    EXPECT_TRUE(rows.ok()) << rows.status();
    if (!rows.ok() || rows->rows.empty()) return -1;
    return rows->rows[0].int64(0).value_or(-1);
  }

  TempDir dir_;
  std::unique_ptr<WorkStore> reader_;
  std::unique_ptr<WorkStore> writer_;
};

using SqlDatabases = ::testing::Types<SqliteDatabase, PostgresDatabase>;
class DatabaseNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, SqliteDatabase> ? "Sqlite" : "Postgres";
  }
};
TYPED_TEST_SUITE(ReadTransactionTests, SqlDatabases, DatabaseNames);

TYPED_TEST(ReadTransactionTests, SeesOneSnapshot_WhileAnotherConnectionCommits) {
  ReadTransaction snapshot(*this->reader_);
  ASSERT_TRUE(snapshot.status().ok()) << snapshot.status();
  SqlSession& sql = *snapshot.sql().value();
  EXPECT_EQ(this->balance(sql), 100);

  // With a writing Transaction open on the reader, SQLite's writer would wait out its busy
  // timeout here and fail with "database is locked".
  ASSERT_TRUE(this->write("UPDATE accounts SET balance = 50 WHERE id = 'alice'").ok());

  EXPECT_EQ(this->balance(sql), 100) << "the snapshot moved";
  ASSERT_TRUE(snapshot.end().ok());

  ReadTransaction later(*this->reader_);
  EXPECT_EQ(this->balance(*later.sql().value()), 50);
}

TYPED_TEST(ReadTransactionTests, AWriteInside_Fails_AndTheStoreWritesAfterwards) {
  {
    ReadTransaction snapshot(*this->reader_);
    SqlSession& sql = *snapshot.sql().value();
    EXPECT_FALSE(sql.execute("UPDATE accounts SET balance = 1 WHERE id = 'alice'").ok());
  }
  // The connection is writable again once the snapshot ended.
  Transaction transaction(*this->reader_);
  ASSERT_TRUE(transaction.sql()
                  .value()
                  ->execute("UPDATE accounts SET balance = 7 WHERE id = 'alice'")
                  .ok());
  ASSERT_TRUE(transaction.commit().ok());
  ReadTransaction check(*this->writer_);
  EXPECT_EQ(this->balance(*check.sql().value()), 7);
}

TYPED_TEST(ReadTransactionTests, InsideATransaction_JoinsIt_AndDoesNotDoomIt) {
  Transaction transaction(*this->reader_);
  ASSERT_TRUE(transaction.sql()
                  .value()
                  ->execute("UPDATE accounts SET balance = 9 WHERE id = 'alice'")
                  .ok());
  {
    ReadTransaction nested(*this->reader_);
    ASSERT_TRUE(nested.status().ok());
    EXPECT_EQ(this->balance(*nested.sql().value()), 9);  // the enclosing transaction's write
  }
  ASSERT_TRUE(transaction.commit().ok());
  ReadTransaction check(*this->writer_);
  EXPECT_EQ(this->balance(*check.sql().value()), 9);
}

TYPED_TEST(ReadTransactionTests, AfterItEnded_SqlIsRefused) {
  ReadTransaction snapshot(*this->reader_);
  ASSERT_TRUE(snapshot.end().ok());
  EXPECT_EQ(snapshot.sql().status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace store_test
