// GroupCommit: several handlings of a claimed batch share one transaction, so they cost one
// commit (one fsync under FULL durability) instead of one each
// (docs/guide/06-stores-and-workers.md).
//
// Each handling runs in a savepoint of its own inside the group's transaction: a failing one rolls
// back alone and the others commit together. A group ends when it holds `max_handlings`, or when
// `max_duration` has passed since it began: the store's write lock is held while a group is open,
// so a group must not keep other writers (the dispatcher, the drain worker) waiting long.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "throughput_counters.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class GroupCommit {
 public:
  // `metrics` (may be null) counts each handling once its group committed (count_handled).
  GroupCommit(WorkStore& store, std::size_t max_handlings, std::chrono::milliseconds max_duration,
              std::shared_ptr<Metrics> metrics = nullptr)
      : store_(store),
        max_handlings_(max_handlings == 0 ? 1 : max_handlings),
        max_duration_(max_duration),
        metrics_(std::move(metrics)) {}
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;
  ~GroupCommit() { abandon(); }  // nothing commits unless commit() said so

  // Opens the group's transaction when none is open: what the caller writes next joins it.
  absl::Status join() {
    if (transaction_) return absl::OkStatus();
    transaction_ = std::make_unique<Transaction>(store_);
    if (!transaction_->status().ok()) {
      absl::Status status = transaction_->status();
      transaction_.reset();
      return status;
    }
    began_ = std::chrono::steady_clock::now();
    return absl::OkStatus();
  }

  bool is_open() const { return transaction_ != nullptr; }

  // One row was gone through (`handled`: its handling is in the group); commits when the group is
  // full or old enough.
  absl::Status row_done(bool handled, std::string_view message_type) {
    count(handled, message_type);
    return due() ? commit() : absl::OkStatus();
  }

  // One row gone through, counted without committing: for a caller that must end the group
  // itself (it checks due() before each row).
  void count(bool handled, std::string_view message_type) {
    if (handled) {
      ++handled_;
      if (metrics_) handled_types_.emplace_back(message_type);
    }
    ++rows_;
  }
  // A handling that committed on its own transaction nested in the open group: it commits (and
  // is counted) with the group.
  void count_with_group(std::string_view message_type) {
    if (metrics_) handled_types_.emplace_back(message_type);
  }
  // Whether the open group is full or old enough to commit.
  bool due() const {
    return rows_ >= max_handlings_ || std::chrono::steady_clock::now() - began_ >= max_duration_;
  }

  // Commits the open group, if any; `committed_handlings()` then counts its handlings.
  absl::Status commit() {
    if (!transaction_) return absl::OkStatus();
    absl::Status status = transaction_->commit();
    transaction_.reset();
    if (status.ok()) {
      committed_ += handled_;
      count_by_type(metrics_, metric_names::kInboxHandled, handled_types_);
    }
    handled_types_.clear();
    handled_ = rows_ = 0;
    return status;
  }

  // Rolls the open group back (a simulated crash); returns how many handlings it lost.
  std::size_t abandon() {
    const std::size_t lost = handled_;
    transaction_.reset();  // the Transaction rolls back
    handled_types_.clear();
    handled_ = rows_ = 0;
    return lost;
  }

  std::size_t committed_handlings() const { return committed_; }

 private:
  WorkStore& store_;
  std::size_t max_handlings_;
  std::chrono::milliseconds max_duration_;
  // On the heap, not in a std::optional: g++ 12 at -O2/-O3 warned falsely
  // (-Wmaybe-uninitialized) that ~GroupCommit read a disengaged optional's Transaction.
  std::unique_ptr<Transaction> transaction_;
  std::chrono::steady_clock::time_point began_;
  std::size_t rows_ = 0;
  std::size_t handled_ = 0;  // handlings in the open group
  std::size_t committed_ = 0;
  std::shared_ptr<Metrics> metrics_;
  std::vector<std::string> handled_types_;  // of the open group's handlings
};

}  // namespace whizbang
