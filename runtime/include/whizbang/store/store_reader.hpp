// StoreReader: reads of single stored rows, for tools and tests that check what a store holds.
//
// Not part of WorkStore: the runtime never needs them, and a backend's hot paths should not
// depend on them. Both backends of the project implement it; `reader_of` finds it on a WorkStore.
//
//   whizbang::StoreReader* reader = whizbang::reader_of(host.store());
//   auto row = reader->find_outbox_row(receipt->message_id);   // nullopt: published, or never
//   if (row.ok() && row->has_value()) inspect((*row)->state.attempts);
#pragma once

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class StoreReader {
 public:
  virtual ~StoreReader() = default;

  // The row with this id; nullopt when there is none (an outbox row is gone once published).
  virtual absl::StatusOr<std::optional<OutboxRow>> find_outbox_row(const MessageId& id) = 0;
  virtual absl::StatusOr<std::optional<InboxRow>> find_inbox_row(const MessageId& id) = 0;
  // A stream's perspective events in event-id order.
  virtual absl::StatusOr<std::vector<PerspectiveEventRow>> perspective_events(
      const Uuid& stream_id) = 0;
};

// The reads `store` offers; nullptr when its backend implements no StoreReader.
inline StoreReader* reader_of(WorkStore& store) { return dynamic_cast<StoreReader*>(&store); }

}  // namespace whizbang
