// LeaseKeeper: keeps a claimed batch's leases alive while a worker goes through it.
//
// A batch is claimed with one lease per row (StoreOptions::lease_duration). A worker whose rows
// run long (slow receptors, a slow transport) would see the last rows' leases lapse and another
// instance take them over: both would then handle them. Before each row (or group of rows) the
// keeper renews the rest of the batch once `interval` has passed since the claim or the last
// renewal, and remembers which rows it no longer holds.
#pragma once

#include <chrono>
#include <set>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class LeaseKeeper {
 public:
  LeaseKeeper(WorkStore& store, std::chrono::milliseconds interval)
      : store_(store), interval_(interval), last_renewal_(std::chrono::steady_clock::now()) {}

  // Renews `remaining` when the interval has passed.
  absl::Status renew_if_due(std::span<const WorkLease> remaining) {
    if (std::chrono::steady_clock::now() - last_renewal_ < interval_) return absl::OkStatus();
    absl::StatusOr<std::vector<MessageId>> held = store_.renew_leases(remaining);
    if (!held.ok()) return held.status();
    const std::set<MessageId> renewed(held->begin(), held->end());
    for (const WorkLease& lease : remaining) {
      if (!renewed.contains(lease.message_id)) lost_.insert(lease.message_id);
    }
    last_renewal_ = std::chrono::steady_clock::now();
    return absl::OkStatus();
  }

  // Before working on items[index] of a claimed batch: renews items[index..] when due; false
  // when another instance has taken items[index] over.
  absl::StatusOr<bool> still_held(std::span<const WorkItem> items, std::size_t index) {
    if (std::chrono::steady_clock::now() - last_renewal_ >= interval_) {
      std::vector<WorkLease> remaining;
      for (std::size_t i = index; i < items.size(); ++i) {
        remaining.push_back({items[i].source, items[i].message_id});
      }
      if (absl::Status status = renew_if_due(remaining); !status.ok()) return status;
    }
    return !lost_.contains(items[index].message_id);
  }

  bool lost(const MessageId& id) const { return lost_.contains(id); }
  // Notes a row found taken over otherwise (a renewal of that row alone).
  void mark_lost(const MessageId& id) { lost_.insert(id); }

 private:
  WorkStore& store_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point last_renewal_;
  std::set<MessageId> lost_;
};

}  // namespace whizbang
