// EventStore: the event-store role of the durable store — reading a stream back. Events are
// appended by the coordination role's claims (an event row's envelope goes to its stream), so
// this role only reads. Perspective rebuilds, tools and tests call it through WorkStore.
//
//   auto events = store.read_stream(order_id);   // version order; empty for an unknown stream
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang {

class EventStore {
 public:
  virtual ~EventStore() = default;

  // A stream's events in version order.
  virtual absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) = 0;
};

}  // namespace whizbang
