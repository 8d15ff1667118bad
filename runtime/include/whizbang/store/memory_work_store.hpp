// MemoryWorkStore: the WorkStore contract held in process memory.
//
// For tests and for hosts that need no durability: it passes the same contract tests as the
// SQLite store (dedup, leases, orphan re-offer, backoff, event-store versions, transactions with
// rollback). A transaction snapshots the state at begin() and restores it on rollback.
//
//   whizbang::MemoryWorkStore store({.instance = self, .metrics = metrics});
//   auto rows = store.store_outbox_messages(messages);
//   auto row = store.find_outbox_row(rows->front().message_id);   // inspect
#pragma once

#include <memory>

#include "whizbang/store/composed_work_store.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class MemoryWorkStore final : public ComposedWorkStore, public StoreReader {
 public:
  explicit MemoryWorkStore(StoreOptions options = {});
  ~MemoryWorkStore() override;
  MemoryWorkStore(const MemoryWorkStore&) = delete;
  MemoryWorkStore& operator=(const MemoryWorkStore&) = delete;

  // Every WorkStore call: ComposedWorkStore, forwarded to the store's role objects.

  // StoreReader
  absl::StatusOr<std::optional<OutboxRow>> find_outbox_row(const MessageId& id) override;
  absl::StatusOr<std::optional<InboxRow>> find_inbox_row(const MessageId& id) override;
  absl::StatusOr<std::vector<PerspectiveEventRow>> perspective_events(
      const Uuid& stream_id) override;

  const StoreOptions& options() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
