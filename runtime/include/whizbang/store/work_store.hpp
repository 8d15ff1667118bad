// WorkStore: the durable-store contract (outbox, inbox, event store, work coordination).
//
// Implemented once per backend (store/sqlite today, store/postgres next) and in memory for tests;
// the contract tests in tests/store run against every implementation. It is three parts:
// OutboxStore (what a dispatcher writes), PerspectiveStore (what perspectives run on) and the
// coordination below. Reads of single rows for tools and tests are a separate interface,
// StoreReader (store_reader.hpp), which backends implement beside it.
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
//
// Deduplication: store_outbox_messages inserts each row unless its message_id is already known
// (an unpublished row, or a published one's tombstone); every skipped row adds one to
// `whizbang.work_coordinator.outbox.emission_deduplicated{message_type}` and logs a Debug line
// (EventId 110). Inbox rows are deduplicated permanently (wh_message_deduplication).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/message/envelope.hpp"
#include "whizbang/store/outbox_message.hpp"
#include "whizbang/store/outbox_store.hpp"
#include "whizbang/store/perspective_store.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang {

// What a committed transaction wrote, for wake-ups ("deliver now, not at the next poll").
struct CommitInfo {
  bool outbox_written = false;
  bool inbox_written = false;
};

// What accept_deliveries() did with a delivered batch.
struct AcceptedDeliveries {
  std::vector<WorkItem> ready;  // to handle now; no inbox row holds them
  std::size_t stored = 0;       // stored as inbox rows, for a claim
  std::size_t duplicates = 0;   // seen before: nothing to do
};

class WorkStore : public OutboxStore, public PerspectiveStore {
 public:
  using CommitListener = std::function<void(const CommitInfo&)>;

  ~WorkStore() override = default;

  // ---- transactions -------------------------------------------------------------------------
  virtual absl::Status begin() = 0;
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

  // ---- writes -------------------------------------------------------------------------------

  // Inserts each message unless a row with its message_id exists (then: a counted no-op, see
  // above). New rows are leased to this instance at once. Returns one row per input in input
  // order.
  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override = 0;

  // Inserts each message not seen before (permanent dedup) without a lease, so any instance can
  // claim it. An all-zero source_service_id is unknown and becomes `receiving_service_id`.
  // Returns the ids of the newly stored rows (a duplicate produces no row).
  virtual absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) = 0;

  // ---- handling deliveries without an inbox row (optional) ----------------------------------
  // A store that answers these lets the inbox worker handle a delivered batch in the transaction
  // that receives it without writing the inbox rows of the handlings that succeed: one insert, a
  // claim and a delete fewer per message (docs/guide/06-stores-and-workers.md, "Handling on
  // delivery"). The others store every delivery and claim it.
  virtual bool accepts_deliveries() const { return false; }

  // Inside the caller's transaction, `messages` in message-id order. Each one not seen before is
  // deduplicated permanently, as store_inbox_messages() does. It is stored as an inbox row, for a
  // later claim, when its stream has an inbox row still to handle (or a message of this call was
  // stored on it), or when it is an event the store cannot take apart; otherwise it is returned
  // ready to handle as a claim returns a row (an event already appended to its stream), and no
  // row is written. A ready message whose handling does not succeed needs keep_accepted() before
  // its failure or release is recorded.
  virtual absl::StatusOr<AcceptedDeliveries> accept_deliveries(
      std::span<const InboxMessage> /*messages*/, const Uuid& /*receiving_service_id*/) {
    return absl::UnimplementedError("this store stores every delivery (accepts_deliveries())");
  }

  // Writes the inbox rows of messages accept_deliveries() returned ready, in the caller's
  // transaction, leased to this instance: complete_work() then applies to them as to claimed
  // rows (a failure, a dead letter, a release, or the next claim).
  virtual absl::Status keep_accepted(std::span<const InboxMessage> /*messages*/,
                                     const Uuid& /*receiving_service_id*/) {
    return absl::UnimplementedError("this store stores every delivery (accepts_deliveries())");
  }

  // One coordination cycle (see WorkBatchRequest). Returns the work leased to this instance:
  // outbox rows first, then inbox rows, each in message-id order.
  virtual absl::StatusOr<std::vector<WorkItem>> process_work_batch(
      const WorkBatchRequest& request) = 0;

  // The completion and failure phases of process_work_batch on their own, so a handling can
  // complete its inbox row in the transaction that stores its emissions. Every failure adds one
  // to `whizbang.work_coordinator.failed{message_type}`; a dead-lettering one also to
  // `…dead_lettered{message_type}` and logs a Warning (EventId 141).
  virtual absl::Status complete_work(std::span<const WorkCompletion> completions,
                                     std::span<const WorkFailure> failures) = 0;

  // Extends the leases this instance holds on `leases` by the store's lease duration. Returns the
  // ids it still held (and renewed); a row missing from the answer was completed or claimed by
  // another instance after its lease lapsed: its handling must not commit. Workers call it for
  // long batches, and inside a handling's transaction just before it commits.
  virtual absl::StatusOr<std::vector<MessageId>> renew_leases(
      std::span<const WorkLease> leases) = 0;

  // Records that the receptors fired for `message_id` (insert-or-ignore on (message_id,
  // receptor_id, service_name, perspective)).
  virtual absl::Status record_receptor_invocations(
      const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) = 0;
  // Every record of `receptor_id` for `message_id`, any service or perspective, oldest first.
  virtual absl::StatusOr<std::vector<ReceptorInvocationRecord>> find_receptor_invocations(
      const MessageId& message_id, std::string_view receptor_id) = 0;

  // ---- lifecycle stages after perspectives --------------------------------------------------
  // Lifecycle completions (see LifecycleWork) that are unleased, leased to this instance or whose
  // lease lapsed, and due; each is leased to this instance. Oldest event first.
  virtual absl::StatusOr<std::vector<LifecycleWork>> claim_lifecycle_work(
      std::size_t max_items) = 0;
  // Extends this instance's lease on the lifecycle completion of `event_id`; false when it is
  // not this instance's (another took it over, or it is gone). Inside a transaction the
  // completion then stays this instance's until the commit: its stages fire in between.
  virtual absl::StatusOr<bool> renew_lifecycle_work(const MessageId& event_id) = 0;
  // Its stages succeeded: the lifecycle completion is deleted.
  virtual absl::Status complete_lifecycle_work(const MessageId& event_id) = 0;
  // Its stages failed: retried with backoff, dead-lettered like any row.
  virtual absl::Status fail_lifecycle_work(const MessageId& event_id, std::string_view error,
                                           bool dead_letter) = 0;

  // ---- detached stages ----------------------------------------------------------------------
  // Keeps a Detached stage's invocation until it has run (see DetachedWork), leased to this
  // instance; joins the caller's transaction.
  virtual absl::Status store_detached_work(const DetachedWork& work) = 0;
  // Detached work that is unleased (waiting for a retry) or whose lease lapsed (its process died),
  // and due; each is leased to this instance. Not work leased to this instance: that is on its way
  // through this process's executor. Oldest first.
  virtual absl::StatusOr<std::vector<DetachedWork>> claim_detached_work(std::size_t max_items) = 0;
  // Deletes the work while this instance holds its lease: the run that calls it, inside the
  // transaction that runs the receptor, owns the run. False: it is gone (the handling that
  // scheduled it rolled back, or it ran), failed and waits for a retry, or another instance took
  // it over.
  virtual absl::StatusOr<bool> complete_detached_work(const MessageId& work_id) = 0;
  // Its run failed: retried with backoff, dead-lettered like any row.
  virtual absl::Status fail_detached_work(const MessageId& work_id, std::string_view error,
                                          bool dead_letter) = 0;

  // ---- operations ---------------------------------------------------------------------------
  // Dead-lettered rows of every kind, oldest dead letter first, at most `limit`.
  virtual absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) = 0;
  // Gives the dead letters with these ids (DeadLetter::id; empty: every dead letter) a fresh set
  // of attempts: due now, error kept for the record. Returns how many rows were requeued.
  virtual absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) = 0;
  // Deletes duplicate-guarding bookkeeping older than `retention` (see RetentionOptions).
  virtual absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) = 0;

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

  // ---- event store --------------------------------------------------------------------------
  // A stream's events in version order.
  virtual absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) = 0;

  // ---- wake-ups -----------------------------------------------------------------------------
  // Called after every successful outermost commit that wrote outbox or inbox rows, on the
  // committing thread, with no store lock held. Returns an id for remove_commit_listener.
  virtual int add_commit_listener(CommitListener listener) = 0;
  virtual void remove_commit_listener(int id) = 0;
};

// RAII transaction: begins on construction, rolls back on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(WorkStore& store) : store_(store), status_(store.begin()) {}
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
  WorkStore& store_;
  absl::Status status_;
  bool done_ = false;
};

// RAII savepoint inside an open transaction: rolls back to it on destruction unless released.
class Savepoint {
 public:
  explicit Savepoint(WorkStore& store) : store_(store), status_(store.savepoint()) {}
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
  WorkStore& store_;
  absl::Status status_;
  bool done_ = false;
};

}  // namespace whizbang
