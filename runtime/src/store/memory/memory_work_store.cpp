// MemoryWorkStore: construction, its role objects composed, and the reads of single rows
// (StoreReader).
#include <algorithm>
#include <cctype>

#include "memory/memory_store_impl.hpp"

namespace whizbang {

MemoryWorkStore::MemoryWorkStore(StoreOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  compose(impl_->roles());
}

MemoryWorkStore::~MemoryWorkStore() = default;

const StoreOptions& MemoryWorkStore::options() const { return impl_->options; }

absl::StatusOr<std::optional<OutboxRow>> MemoryWorkStore::find_outbox_row(const MessageId& id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::optional<OutboxRow>> {
    auto it = impl_->state.outbox.find(id);
    if (it == impl_->state.outbox.end()) return std::optional<OutboxRow>();
    return std::optional<OutboxRow>(it->second);
  });
}

absl::StatusOr<std::optional<InboxRow>> MemoryWorkStore::find_inbox_row(const MessageId& id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::optional<InboxRow>> {
    auto it = impl_->state.inbox.find(id);
    if (it == impl_->state.inbox.end()) return std::optional<InboxRow>();
    return std::optional<InboxRow>(it->second);
  });
}

absl::StatusOr<std::vector<PerspectiveEventRow>> MemoryWorkStore::perspective_events(
    const Uuid& stream_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveEventRow>> {
    std::vector<PerspectiveEventRow> rows;
    for (const auto& [key, row] : impl_->state.perspective_events) {
      if (std::get<0>(key) == stream_id) rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.stream_version < b.stream_version;
    });
    return rows;
  });
}

}  // namespace whizbang
