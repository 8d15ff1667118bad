// StoreTransactions: the transaction role of the durable store — transactions, savepoints, your
// SQL in them, and commit listeners (wake-ups). WorkStore (work_store.hpp) takes it with every
// other role; the RAII `Transaction` and `Savepoint` below stand on it.
//
// Transactions: begin() opens a transaction on the store's connection. Until it is committed or
// rolled back, every call made on the store *from the thread that opened it* joins it; calls from
// other threads wait. This is how one handling's emitted outbox rows, its inbox completion and its
// receptor invocation records commit together. A nested begin() joins the open transaction; a
// nested rollback() dooms it (the outer commit() then rolls back and returns Aborted). Prefer the
// RAII `Transaction` below.
//
// Savepoints: inside an open transaction, savepoint() marks a point; rolling back to it undoes only
// what was written since, and a call failing after it dooms only the savepoint, so the
// transaction can still commit. Group commit stands on this: a batch of handlings in one
// transaction, each in its own savepoint (docs/guide/06-stores-and-workers.md). Prefer the RAII
// `Savepoint` below.
//
//   whizbang::Transaction tx(store);
//   auto rows = store.store_outbox_messages(emitted);          // joins tx
//   store.complete_work(completions, {});                      // joins tx
//   if (absl::Status s = tx.commit(); !s.ok()) return s;       // destructor rolls back otherwise
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/store/sql_session.hpp"

namespace whizbang {

// What a committed transaction wrote, for wake-ups ("deliver now, not at the next poll").
struct CommitInfo {
  bool outbox_written = false;
  bool inbox_written = false;
  // Perspective events completed or failed: what read-your-writes waits for
  // (whizbang/workers/perspective_sync.hpp).
  bool perspectives_written = false;
};

class StoreTransactions {
 public:
  using CommitListener = std::function<void(const CommitInfo&)>;

  virtual ~StoreTransactions() = default;

  // ---- transactions -------------------------------------------------------------------------
  virtual absl::Status begin() = 0;
  // A transaction that only reads, and reads one snapshot: every call in it sees the store as
  // of its first read, and it keeps no writer waiting (SQLite: a deferred, query-only transaction
  // in WAL mode; PostgreSQL: REPEATABLE READ, READ ONLY: a write inside fails). Ended by commit().
  // Inside an open transaction it joins that one. Prefer `ReadTransaction` below.
  virtual absl::Status begin_snapshot() { return begin(); }
  virtual absl::Status commit() = 0;
  virtual absl::Status rollback() = 0;
  // True when the calling thread has a transaction open on this store.
  virtual bool in_transaction() const = 0;
  // True when the store admits one writing transaction at a time (SQLite, memory): a claim made
  // inside a longer transaction then keeps no writer waiting who would not wait anyway. False
  // where claims from many instances proceed side by side (PostgreSQL).
  virtual bool writers_take_turns() const { return false; }
  // Inside the calling thread's transaction. release_savepoint() keeps what was written since
  // the savepoint (Aborted, and rolled back, when a call after it failed); rollback_to_savepoint()
  // undoes it. Either ends the innermost savepoint; savepoints nest.
  virtual absl::Status savepoint() = 0;
  virtual absl::Status release_savepoint() = 0;
  virtual absl::Status rollback_to_savepoint() = 0;

  // ---- your SQL -----------------------------------------------------------------------------
  // The session that runs your statements in this store's transaction open on the calling
  // thread (sql_session.hpp; SqlSession::current() finds it without the store). The session
  // lives as long as the store; each call checks that the calling thread holds a transaction of
  // it (FailedPrecondition otherwise). Unimplemented for a store without SQL (memory).
  virtual absl::StatusOr<SqlSession*> sql() {
    return absl::UnimplementedError(
        "this store has no SQL (the memory store): use SQLite (\":memory:\" for tests) or "
        "PostgreSQL");
  }

  // ---- wake-ups -----------------------------------------------------------------------------
  // Called after every successful outermost commit that wrote outbox or inbox rows or completed
  // perspective events (and, on PostgreSQL, for such commits of other processes), on the
  // committing thread, with no store lock held. Returns an id for remove_commit_listener.
  virtual int add_commit_listener(CommitListener listener) = 0;
  virtual void remove_commit_listener(int id) = 0;
};

// RAII read-only snapshot: several reads that must agree with each other (a page of models and
// their totals, say), without holding SQLite's write lock the way `Transaction` does.
//   whizbang::ReadTransaction snapshot(store);
//   auto cart = carts.find(cart_id);       // both reads see the same moment
//   auto lines = lines_of(cart_id);
class ReadTransaction {
 public:
  explicit ReadTransaction(StoreTransactions& store)
      : store_(store), status_(store.begin_snapshot()) {}
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;
  // Ends with commit(), not rollback(): a ReadTransaction that joined an enclosing
  // Transaction must not doom it, and a snapshot that wrote nothing commits nothing.
  ~ReadTransaction() { (void)end(); }

  // The status of begin_snapshot(); when not ok, no transaction is open.
  const absl::Status& status() const { return status_; }
  // Your SQL, reading in the snapshot (sql_session.hpp); a write fails on SQLite and PostgreSQL.
  absl::StatusOr<SqlSession*> sql() {
    if (!status_.ok()) return status_;
    if (done_) return absl::FailedPreconditionError("the ReadTransaction has ended");
    return store_.sql();
  }
  // Ends the snapshot early (the destructor ends it otherwise).
  absl::Status end() {
    if (!status_.ok() || done_) return status_;
    done_ = true;
    return store_.commit();
  }

 private:
  StoreTransactions& store_;
  absl::Status status_;
  bool done_ = false;
};

// RAII transaction: begins on construction, rolls back on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(StoreTransactions& store) : store_(store), status_(store.begin()) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (status_.ok() && !done_) (void)store_.rollback();
  }

  // The status of begin(); when not ok, no transaction is open.
  const absl::Status& status() const { return status_; }
  absl::Status commit() {
    if (!status_.ok()) return status_;
    done_ = true;
    return store_.commit();
  }
  absl::Status rollback() {
    if (!status_.ok() || done_) return status_;
    done_ = true;
    return store_.rollback();
  }

  // Your SQL in this transaction (sql_session.hpp): the rows you write commit with the messages
  // you send inside it, or not at all.
  //   whizbang::Transaction tx(store);
  //   tx.sql().value()->execute("INSERT INTO orders (id, total) VALUES ($1, $2)", {id, total});
  //   dispatcher.send(CreateInvoice{id});                       // joins tx
  //   if (absl::Status s = tx.commit(); !s.ok()) return s;
  absl::StatusOr<SqlSession*> sql() {
    if (!status_.ok()) return status_;
    if (done_) return absl::FailedPreconditionError("the Transaction has ended");
    return store_.sql();
  }

 private:
  StoreTransactions& store_;
  absl::Status status_;
  bool done_ = false;
};

// RAII savepoint inside an open transaction: rolls back to it on destruction unless released.
class Savepoint {
 public:
  explicit Savepoint(StoreTransactions& store) : store_(store), status_(store.savepoint()) {}
  Savepoint(const Savepoint&) = delete;
  Savepoint& operator=(const Savepoint&) = delete;
  ~Savepoint() {
    if (status_.ok() && !done_) (void)store_.rollback_to_savepoint();
  }

  // The status of savepoint(); when not ok, no savepoint is open.
  const absl::Status& status() const { return status_; }
  absl::Status release() {
    if (!status_.ok()) return status_;
    done_ = true;
    return store_.release_savepoint();
  }
  absl::Status rollback() {
    if (!status_.ok() || done_) return status_;
    done_ = true;
    return store_.rollback_to_savepoint();
  }

 private:
  StoreTransactions& store_;
  absl::Status status_;
  bool done_ = false;
};

}  // namespace whizbang
