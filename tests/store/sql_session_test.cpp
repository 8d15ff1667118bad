// SqlSession (docs/guide/17-your-data.md): your SQL on the store's own connection, in the
// transaction (and the savepoint) open on the calling thread, on SQLite and PostgreSQL; each
// misuse is a clear error.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <thread>

#include "store_backends.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {
namespace {

using whizbang::SqlRows;
using whizbang::SqlSession;
using whizbang::Transaction;

template <class Backend>
class SqlSessionTests : public BackendStoreTest<Backend> {
 protected:
  void SetUp() override {
    BackendStoreTest<Backend>::SetUp();
    ASSERT_TRUE(
        in_a_transaction([](SqlSession& sql) {
          return sql
              .execute(
                  "CREATE TABLE accounts (id TEXT PRIMARY KEY, balance BIGINT NOT NULL "
                  "CHECK (balance >= 0), rate DOUBLE PRECISION, photo BYTEA, active BOOLEAN)")
              .status();
        }).ok());
  }

  // Runs `work` with the session of a transaction of the store, and commits.
  template <class Work>
  absl::Status in_a_transaction(Work work) {
    Transaction transaction(*this->store_);
    absl::StatusOr<SqlSession*> sql = transaction.sql();
    if (!sql.ok()) return sql.status();
    if (absl::Status status = work(**sql); !status.ok()) return status;
    return transaction.commit();
  }
  std::int64_t balance(std::string_view id) {
    std::int64_t found = -1;
    EXPECT_TRUE(in_a_transaction([&](SqlSession& sql) {
                  absl::StatusOr<SqlRows> rows =
                      sql.query("SELECT balance FROM accounts WHERE id = $1", {id});
                  if (!rows.ok()) return rows.status();
                  if (!rows->rows.empty()) found = *rows->rows[0].int64(0);
                  return absl::OkStatus();
                }).ok());
    return found;
  }
  void open_account(std::string_view id, std::int64_t balance) {
    ASSERT_TRUE(in_a_transaction([&](SqlSession& sql) {
                  return sql
                      .execute("INSERT INTO accounts (id, balance) VALUES ($1, $2)", {id, balance})
                      .status();
                }).ok());
  }
};

// SQLite and PostgreSQL; the memory store has no SQL (its own test below).
using SqlBackends = ::testing::Types<SqliteBackend, PostgresBackend>;
TYPED_TEST_SUITE(SqlSessionTests, SqlBackends, BackendNames);

TYPED_TEST(SqlSessionTests, RowsCommitWithTheTransaction_OrNotAtAll) {
  this->open_account("alice", 100);
  {
    Transaction transaction(*this->store_);
    SqlSession& sql = *transaction.sql().value();
    absl::StatusOr<std::int64_t> changed =
        sql.execute("UPDATE accounts SET balance = balance - $1 WHERE id = $2", {30, "alice"});
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_EQ(*changed, 1);
    // Not committed: rolled back by the destructor.
  }
  EXPECT_EQ(this->balance("alice"), 100);
  ASSERT_TRUE(this->in_a_transaction([](SqlSession& sql) {
                    return sql
                        .execute("UPDATE accounts SET balance = balance - $1 WHERE id = $2",
                                 {30, "alice"})
                        .status();
                  })
                  .ok());
  EXPECT_EQ(this->balance("alice"), 70);
}

// The rows a request writes and the message it sends commit together.
TYPED_TEST(SqlSessionTests, RowAndOutboxMessage_OneCommit) {
  const whizbang::OutboxMessage invoice = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
  {
    Transaction transaction(*this->store_);
    ASSERT_TRUE(transaction.sql()
                    .value()
                    ->execute("INSERT INTO accounts (id, balance) VALUES ($1, $2)", {"bob", 5})
                    .ok());
    ASSERT_TRUE(this->store_->store_outbox_messages({&invoice, 1}).ok());
    ASSERT_TRUE(transaction.rollback().ok());
  }
  EXPECT_EQ(this->balance("bob"), -1);
  auto row = whizbang::reader_of(*this->store_)->find_outbox_row(invoice.message_id);
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(row->has_value()) << "rolled back with the row";
}

TYPED_TEST(SqlSessionTests, ValuesReadByType) {
  ASSERT_TRUE(
      this->in_a_transaction([](SqlSession& sql) {
            return sql
                .execute(
                    "INSERT INTO accounts (id, balance, rate, photo, active) VALUES ($1, $2, $3, "
                    "$4, $5)",
                    {"carol", std::int64_t{1} << 40, 0.25, whizbang::SqlBlob{0, 1, 0xff}, true})
                .status();
          })
          .ok());
  const absl::Status read = this->in_a_transaction([](SqlSession& sql) {
    absl::StatusOr<SqlRows> rows = sql.query(
        "SELECT id, balance, rate, photo, active, NULL AS missing FROM accounts "
        "WHERE id = $1",
        {"carol"});
    if (!rows.ok()) return rows.status();
    EXPECT_EQ(rows->columns.size(), 6u);
    EXPECT_EQ(rows->columns[1], "balance");
    if (rows->rows.size() != 1) return absl::InternalError("one row expected");
    const whizbang::SqlRow& row = rows->rows[0];
    EXPECT_EQ(*row.text(0), "carol");
    EXPECT_EQ(*row.int64(1), std::int64_t{1} << 40);
    EXPECT_DOUBLE_EQ(*row.real(2), 0.25);
    EXPECT_EQ(*row.blob(3), (whizbang::SqlBlob{0, 1, 0xff}));
    EXPECT_TRUE(*row.boolean(4));
    EXPECT_TRUE(row.is_null(5));
    EXPECT_FALSE(row.int64(5).ok()) << "NULL is not a number";
    EXPECT_FALSE(row.int64(0).ok()) << "'carol' is not a number";
    EXPECT_FALSE(row.int64(9).ok()) << "no such column";
    return absl::OkStatus();
  });
  EXPECT_TRUE(read.ok()) << read;
}

TYPED_TEST(SqlSessionTests, NoTransactionOnThisThread_AClearError) {
  absl::StatusOr<SqlSession*> current = SqlSession::current();
  EXPECT_TRUE(absl::IsFailedPrecondition(current.status())) << current.status();
  absl::StatusOr<SqlSession*> from_store = this->store_->sql();
  EXPECT_TRUE(absl::IsFailedPrecondition(from_store.status())) << from_store.status();
  EXPECT_NE(from_store.status().message().find("no handling or Transaction"),
            std::string_view::npos);
}

// A session kept past its handling, or handed to another thread, is refused there.
TYPED_TEST(SqlSessionTests, CalledFromAnotherThread_AClearError) {
  Transaction transaction(*this->store_);
  SqlSession* sql = SqlSession::current().value();
  absl::Status elsewhere;
  std::thread other([&] { elsewhere = sql->execute("DELETE FROM accounts").status(); });
  other.join();
  EXPECT_TRUE(absl::IsFailedPrecondition(elsewhere)) << elsewhere;
  EXPECT_NE(elsewhere.message().find("does not hold the store's transaction"),
            std::string_view::npos);
  EXPECT_TRUE(transaction.commit().ok()) << "the transaction itself is unharmed";
}

// Group commit: each handling in a savepoint of its own. A statement that fails dooms its
// handling's savepoint (even if the receptor ignores the error); the others commit.
TYPED_TEST(SqlSessionTests, FailedStatement_RollsBackItsSavepointOnly) {
  this->open_account("alice", 10);
  Transaction transaction(*this->store_);
  SqlSession& sql = *transaction.sql().value();
  {
    whizbang::Savepoint first(*this->store_);
    ASSERT_TRUE(sql.execute("INSERT INTO accounts (id, balance) VALUES ($1, $2)", {"dan", 1}).ok());
    ASSERT_TRUE(first.release().ok());
  }
  {
    whizbang::Savepoint second(*this->store_);
    ASSERT_TRUE(sql.execute("INSERT INTO accounts (id, balance) VALUES ($1, $2)", {"eve", 1}).ok());
    const absl::Status overdrawn =
        sql.execute("UPDATE accounts SET balance = balance - 50 WHERE id = $1", {"alice"}).status();
    EXPECT_FALSE(overdrawn.ok()) << "the CHECK constraint refuses it";
    EXPECT_TRUE(absl::IsAborted(second.release())) << "doomed, though the error was ignored";
  }
  ASSERT_TRUE(transaction.commit().ok());
  EXPECT_EQ(this->balance("dan"), 1);
  EXPECT_EQ(this->balance("eve"), -1);
  EXPECT_EQ(this->balance("alice"), 10);
}

TYPED_TEST(SqlSessionTests, ParametersThatDoNotFit_AClearError) {
  Transaction transaction(*this->store_);
  SqlSession& sql = *transaction.sql().value();
  EXPECT_FALSE(sql.execute("INSERT INTO accounts (id, balance) VALUES ($1, $2)", {"x"}).ok());
}

// The native connection: statements on it join the transaction; ending the transaction or
// leaving a statement running is refused when it returns.
TYPED_TEST(SqlSessionTests, NativeConnection_JoinsTheTransaction) {
  {
    Transaction transaction(*this->store_);
    const absl::Status used = transaction.sql().value()->with_native(
        [](whizbang::NativeConnection native) -> absl::Status {
          const char* insert = "INSERT INTO accounts (id, balance) VALUES ('frank', 3)";
          if (native.sqlite != nullptr) {
            return sqlite3_exec(native.sqlite, insert, nullptr, nullptr, nullptr) == SQLITE_OK
                       ? absl::OkStatus()
                       : absl::InternalError(sqlite3_errmsg(native.sqlite));
          }
          PGresult* result = PQexec(native.postgres, insert);
          const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
          PQclear(result);
          return ok ? absl::OkStatus() : absl::InternalError("insert failed");
        });
    ASSERT_TRUE(used.ok()) << used;
    ASSERT_TRUE(transaction.rollback().ok());
  }
  EXPECT_EQ(this->balance("frank"), -1) << "rolled back with the transaction";
}

TYPED_TEST(SqlSessionTests, NativeConnectionCommitting_IsRefused) {
  Transaction transaction(*this->store_);
  const absl::Status used =
      transaction.sql().value()->with_native([](whizbang::NativeConnection native) {
        if (native.sqlite != nullptr) {
          sqlite3_exec(native.sqlite, "COMMIT", nullptr, nullptr, nullptr);
        } else {
          PQclear(PQexec(native.postgres, "COMMIT"));
        }
        return absl::OkStatus();
      });
  EXPECT_TRUE(absl::IsFailedPrecondition(used)) << used;
  EXPECT_NE(used.message().find("transaction was ended"), std::string_view::npos) << used;
}

TYPED_TEST(SqlSessionTests, NativeConnectionWithAStatementLeftRunning_IsRefused) {
  this->open_account("gus", 1);
  this->open_account("hal", 2);
  sqlite3_stmt* left_open = nullptr;
  {
    Transaction transaction(*this->store_);
    const absl::Status used =
        transaction.sql().value()->with_native([&](whizbang::NativeConnection native) {
          if (native.sqlite != nullptr) {
            sqlite3_prepare_v2(native.sqlite, "SELECT id FROM accounts", -1, &left_open, nullptr);
            sqlite3_step(left_open);  // one row of two read, not reset
          } else {
            PQsendQuery(native.postgres, "SELECT id FROM accounts");  // its result never read
          }
          return absl::OkStatus();
        });
    EXPECT_TRUE(absl::IsFailedPrecondition(used)) << used;
  }
  sqlite3_finalize(left_open);
  EXPECT_EQ(this->balance("gus"), 1) << "the store goes on serving";
}

TEST(SqlSessionMemoryStoreTests, MemoryStore_HasNoSql_AClearError) {
  whizbang::MemoryWorkStore store;
  Transaction transaction(store);
  const absl::StatusOr<SqlSession*> sql = transaction.sql();
  EXPECT_TRUE(absl::IsUnimplemented(sql.status())) << sql.status();
  EXPECT_TRUE(absl::IsUnimplemented(SqlSession::current().status()));
}

// A group of 100 handlings in one transaction, each writing a row of its own through the
// session; one receptor throws after its write: its row is rolled back with its handling, the
// other 99 commit.
TYPED_TEST(SqlSessionTests, ThrowingReceptorInAGroupOf100_OnlyItsRowsRolledBack) {
  std::vector<whizbang::TransportMessage> batch;
  for (int i = 0; i < 100; ++i) {
    batch.push_back(
        transport_message(outbox_message(OrderCreated{"o-" + std::to_string(i), i}, "orders")));
  }
  const whizbang::MessageId thrower = batch[37].message_id;
  whizbang::InboxWorkerOptions options;
  options.max_group = 100;
  options.max_group_duration = std::chrono::seconds(60);
  whizbang::InboxWorker worker(
      *this->store_, resolve,
      [&](whizbang::InboxHandling& handling) -> absl::Status {
        SqlSession& sql = *SqlSession::current().value();
        const std::string id = handling.envelope.message_id.to_string();
        absl::StatusOr<std::int64_t> written =
            sql.execute("INSERT INTO accounts (id, balance) VALUES ($1, 1)", {id});
        if (!written.ok()) return written.status();
        if (handling.envelope.message_id == thrower) throw std::runtime_error("receptor failed");
        return absl::OkStatus();
      },
      options);
  ASSERT_TRUE(worker.receive(batch).ok());
  absl::StatusOr<whizbang::InboxCycleResult> cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->handled, 99u);
  EXPECT_EQ(cycle->failed, 1u);
  std::int64_t rows = -1;
  ASSERT_TRUE(this->in_a_transaction([&](SqlSession& sql) {
                    absl::StatusOr<SqlRows> count = sql.query("SELECT COUNT(*) FROM accounts");
                    if (!count.ok()) return count.status();
                    rows = *count->rows[0].int64(0);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(rows, 99);
  EXPECT_EQ(this->balance(thrower.to_string()), -1);
}

}  // namespace
}  // namespace store_test
