// TransactionGate: the transaction semantics every WorkStore backend shares.
//
// One recursive mutex serializes the store: a thread that opened a transaction holds it until
// commit/rollback, so its further calls join (re-enter) and other threads wait. Each store call
// outside an explicit transaction runs in its own implicit one. A failed call inside an explicit
// transaction dooms it: the outer commit rolls back and returns Aborted, so a handling never
// commits half of its writes.
//
// Savepoints mark a point inside the calling thread's explicit transaction. Each savepoint has its
// own doom: a call failing inside it dooms the savepoint only, so rolling back to it leaves the
// transaction good to commit. This is what group commit (one transaction for a batch of
// handlings, each in a savepoint) stands on.
//
// Commit listeners run after the store lock is released. remove_listener() waits until no
// thread is still calling the listener (except the calling thread itself, when a listener
// removes itself), so the listener's captures may be destroyed as soon as it returns.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang::store_internal {

// What a backend does at the outermost begin/commit/rollback.
class TransactionBackend {
 public:
  virtual ~TransactionBackend() = default;
  // `explicit_transaction`: opened by begin(), not by a single store call.
  virtual absl::Status backend_begin(bool explicit_transaction) = 0;
  // A transaction for a call that only reads: it must not keep other writers (other processes
  // on the same database) waiting. Defaults to a writing one.
  virtual absl::Status backend_begin_read() { return backend_begin(false); }
  // An explicit transaction that only reads and sees one snapshot of the store throughout,
  // without keeping writers waiting (ReadTransaction). Defaults to a writing one.
  virtual absl::Status backend_begin_snapshot() { return backend_begin(true); }
  // A transaction whose commit need not be on disk when it returns: a power loss may undo it,
  // and the backend's next synced commit puts it on disk first (its log is written in order).
  // Only for writes whose loss returns the store to an earlier consistent state: claims and
  // lease renewals. Defaults to a synced one.
  virtual absl::Status backend_begin_unsynced() { return backend_begin(false); }
  virtual absl::Status backend_commit() = 0;
  virtual void backend_rollback() = 0;
  // Savepoints, `level` 0 for the outermost. rollback_to undoes what was written since the
  // savepoint and removes it; release keeps the writes and removes it. The outermost commit or
  // rollback ends any savepoint still open.
  virtual absl::Status backend_savepoint(int level) = 0;
  virtual absl::Status backend_release(int level) = 0;
  virtual absl::Status backend_rollback_to(int level) = 0;
};

class TransactionGate {
 public:
  // `metrics` (may be null) counts the calls that had to wait for another thread's transaction.
  TransactionGate(TransactionBackend& backend, std::shared_ptr<Metrics> metrics)
      : backend_(backend), metrics_(std::move(metrics)) {}

  absl::Status begin() { return enter(/*explicit_transaction=*/true); }
  absl::Status begin_snapshot() { return enter(/*explicit_transaction=*/true, Kind::Snapshot); }

  // The store's SQL session (sql_session.hpp); null for a store without SQL.
  void set_sql_session(SqlSession* session) { sql_session_ = session; }
  SqlSession* sql_session() const { return sql_session_; }
  // The gates whose explicit transaction is open on this thread, innermost last: where
  // SqlSession::current() finds the handling's store.
  static std::vector<TransactionGate*>& open_on_this_thread() {
    thread_local std::vector<TransactionGate*> open;
    return open;
  }
  absl::Status commit() { return leave(/*success=*/true); }
  absl::Status rollback() { return leave(/*success=*/false); }
  bool in_transaction() const {
    return owner_.load(std::memory_order_acquire) == std::this_thread::get_id();
  }
  // Lets the callers already queued for the store go first. A job of many transactions (the
  // retention purge) calls it between two of them: a mutex is not fair, and the job would often
  // take it again at once, so a queued worker waited for many of its transactions instead of
  // one. Gives up after `patience` (a queued caller may be behind another's long transaction).
  void let_queued_callers_in(std::chrono::milliseconds patience = std::chrono::milliseconds(50)) {
    if (in_transaction()) return;
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (queued_.load(std::memory_order_acquire) > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  }
  // OK when the calling thread holds an explicit transaction of this store: what the user's SQL
  // needs (sql_session.hpp); else why not, for `what`.
  absl::Status require_explicit_transaction(std::string_view what) const {
    if (in_transaction() && explicit_) return absl::OkStatus();
    const bool elsewhere = owner_.load(std::memory_order_acquire) != std::thread::id();
    return absl::FailedPreconditionError(
        std::string(what) +
        (elsewhere ? ": called from a thread that does not hold the store's transaction (a "
                     "session belongs to the thread of its handling or Transaction)"
                   : ": no handling or Transaction of this store is open on this thread"));
  }

  absl::Status savepoint() {
    if (!in_transaction()) {
      return absl::FailedPreconditionError("a savepoint needs a transaction open on this thread");
    }
    if (absl::Status status = backend_.backend_savepoint(static_cast<int>(savepoints_.size()));
        !status.ok()) {
      doomed_ = true;
      return status;
    }
    savepoints_.push_back({depth_, doomed_});
    doomed_ = false;
    return absl::OkStatus();
  }
  // keep: release the savepoint (its writes join the transaction), unless a call inside it failed:
  // then it is rolled back and the answer is Aborted. !keep: roll back to it.
  absl::Status end_savepoint(bool keep) {
    if (!in_transaction() || savepoints_.empty() || savepoints_.back().depth != depth_) {
      // A rollback that cannot happen must not let what it would have undone commit.
      if (!keep && in_transaction() && !savepoints_.empty()) doomed_ = true;
      return absl::FailedPreconditionError("no savepoint open at this level on this thread");
    }
    const Savepoint frame = savepoints_.back();
    savepoints_.pop_back();
    const int level = static_cast<int>(savepoints_.size());
    const bool release = keep && !doomed_;
    absl::Status status =
        release ? backend_.backend_release(level) : backend_.backend_rollback_to(level);
    if (!status.ok()) {
      doomed_ = true;  // the transaction's state is unknown: it must not commit
      return status;
    }
    doomed_ = frame.doomed_before;
    if (keep && !release) {
      return absl::AbortedError("savepoint rolled back: a call inside it failed");
    }
    return absl::OkStatus();
  }

  // Runs `op` (returning Status or StatusOr) inside the caller's transaction or an implicit one.
  template <class Op>
  auto run(Op&& op) -> std::invoke_result_t<Op> {
    return run_as(Kind::Synced, std::forward<Op>(op));
  }

  // The same for an `op` whose writes may be lost to a power loss (backend_begin_unsynced):
  // an implicit transaction of its own is not synced; inside the caller's, it is part of it.
  template <class Op>
  auto run_unsynced(Op&& op) -> std::invoke_result_t<Op> {
    return run_as(Kind::Unsynced, std::forward<Op>(op));
  }

  // The same for an `op` that only reads: an implicit transaction of its own is a reading one.
  template <class Op>
  auto run_read(Op&& op) -> std::invoke_result_t<Op> {
    return run_as(Kind::Read, std::forward<Op>(op));
  }

  // Marks what the current transaction wrote (for the commit listeners).
  void note(const CommitInfo& info) {
    pending_.outbox_written |= info.outbox_written;
    pending_.inbox_written |= info.inbox_written;
    pending_.perspectives_written |= info.perspectives_written;
  }
  // What the current transaction wrote so far (a backend's commit may announce it).
  const CommitInfo& written() const { return pending_; }

  // Calls the commit listeners as a commit would: for work another process committed.
  void notify_listeners(const CommitInfo& info) { notify(info); }

  int add_listener(WorkStore::CommitListener listener) {
    std::lock_guard lock(listeners_mutex_);
    listeners_.emplace(++next_listener_,
                       std::make_shared<Listener>(Listener{std::move(listener), 0}));
    return next_listener_;
  }
  void remove_listener(int id) {
    std::unique_lock lock(listeners_mutex_);
    auto it = listeners_.find(id);
    if (it == listeners_.end()) return;
    std::shared_ptr<Listener> listener = std::move(it->second);
    listeners_.erase(it);
    const auto& calls = calling_on_this_thread();
    const int mine = static_cast<int>(std::count(calls.begin(), calls.end(), listener.get()));
    listener_returned_.wait(lock, [&] { return listener->in_flight == mine; });
  }

 private:
  // What an outermost implicit transaction is (an explicit one is always Synced).
  enum class Kind { Synced, Read, Unsynced, Snapshot };

  template <class Op>
  auto run_as(Kind kind, Op&& op) -> std::invoke_result_t<Op> {
    if (absl::Status status = enter(/*explicit_transaction=*/false, kind); !status.ok()) {
      return status;
    }
    auto result = op();
    absl::Status status = leave(result.ok());
    if (!result.ok()) return result;
    if (!status.ok()) return status;
    return result;
  }

  absl::Status enter(bool explicit_transaction, Kind kind = Kind::Synced) {
    if (!mutex_.try_lock()) {
      // Counted before blocking, so an observer of the counter knows a caller is queued.
      if (metrics_) {
        metrics_->add(metric_names::kWorkCoordinatorMeter, metric_names::kTransactionWaits, 1, {});
      }
      queued_.fetch_add(1, std::memory_order_acq_rel);
      mutex_.lock();
      queued_.fetch_sub(1, std::memory_order_acq_rel);
    }
    if (depth_ == 0) {
      absl::Status status = kind == Kind::Read       ? backend_.backend_begin_read()
                            : kind == Kind::Unsynced ? backend_.backend_begin_unsynced()
                            : kind == Kind::Snapshot ? backend_.backend_begin_snapshot()
                                                     : backend_.backend_begin(explicit_transaction);
      if (!status.ok()) {
        mutex_.unlock();
        return status;
      }
      owner_.store(std::this_thread::get_id(), std::memory_order_release);
      doomed_ = false;
      pending_ = {};
      explicit_ = explicit_transaction;
      if (explicit_) open_on_this_thread().push_back(this);
    }
    ++depth_;
    return absl::OkStatus();
  }

  absl::Status leave(bool success) {
    if (!in_transaction() || depth_ == 0) {
      return absl::FailedPreconditionError("no transaction open on this thread");
    }
    if (--depth_ > 0) {
      if (!success) doomed_ = true;
      mutex_.unlock();
      return absl::OkStatus();
    }
    absl::Status status = absl::OkStatus();
    if (!success || doomed_) {
      backend_.backend_rollback();
      if (success) status = absl::AbortedError("transaction rolled back: a call inside it failed");
    } else {
      status = backend_.backend_commit();
      if (!status.ok()) backend_.backend_rollback();
    }
    const CommitInfo committed = pending_;
    pending_ = {};
    savepoints_.clear();
    if (explicit_) {
      std::vector<TransactionGate*>& open = open_on_this_thread();
      open.erase(std::remove(open.begin(), open.end(), this), open.end());
      explicit_ = false;
    }
    owner_.store(std::thread::id(), std::memory_order_release);
    mutex_.unlock();
    if (success && status.ok() &&
        (committed.outbox_written || committed.inbox_written || committed.perspectives_written)) {
      notify(committed);
    }
    return status;
  }

  struct Listener {
    WorkStore::CommitListener call;
    int in_flight = 0;  // guarded by listeners_mutex_
  };

  void notify(const CommitInfo& info) {
    std::vector<std::shared_ptr<Listener>> listeners;
    {
      std::lock_guard lock(listeners_mutex_);
      for (const auto& [id, listener] : listeners_) {
        ++listener->in_flight;
        listeners.push_back(listener);
      }
    }
    for (const std::shared_ptr<Listener>& listener : listeners) {
      calling_on_this_thread().push_back(listener.get());
      listener->call(info);  // wake-ups only: they do not throw
      calling_on_this_thread().pop_back();
      std::lock_guard lock(listeners_mutex_);
      if (--listener->in_flight == 0) listener_returned_.notify_all();
    }
  }

  // The listeners this thread is calling now (a listener may remove itself).
  static std::vector<const Listener*>& calling_on_this_thread() {
    thread_local std::vector<const Listener*> calls;
    return calls;
  }

  TransactionBackend& backend_;
  std::shared_ptr<Metrics> metrics_;
  SqlSession* sql_session_ = nullptr;
  std::recursive_mutex mutex_;
  std::atomic<int> queued_{0};  // callers blocked in enter(), waiting for mutex_
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;
  bool explicit_ = false;  // the open transaction was opened by begin()
  bool doomed_ = false;    // of the innermost savepoint, or of the transaction when none is open
  struct Savepoint {
    int depth;           // the transaction's nesting when it was made
    bool doomed_before;  // restored when it ends
  };
  std::vector<Savepoint> savepoints_;
  CommitInfo pending_;

  std::mutex listeners_mutex_;
  std::condition_variable listener_returned_;
  std::map<int, std::shared_ptr<Listener>> listeners_;
  int next_listener_ = 0;
};

}  // namespace whizbang::store_internal
