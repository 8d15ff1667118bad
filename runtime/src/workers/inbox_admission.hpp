// What the inbox's door made of a delivered batch (InboxWorker::admit, inbox_receiving.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "delivery_door.hpp"
#include "whizbang/store/outbox_message.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace whizbang {

struct InboxWorker::Admission {
  struct Refusal {
    std::size_t index = 0;  // into the delivered batch
    RefusalKind kind = RefusalKind::Malformed;
    std::string reason;
  };
  std::vector<InboxMessage> rows;   // the admitted messages, as inbox rows
  std::vector<std::size_t> row_of;  // each row's index into the delivered batch
  std::vector<Refusal> refused;     // in batch order
  std::size_t duplicates = 0;       // admitted messages the inbox had received before
};

// Whether a store's error is the whole store's condition (down, full, corrupt, a transaction it
// aborted) rather than one message's: a batch failing so is offered again whole, and no message
// is blamed for it.
bool store_wide(const absl::Status& status);

}  // namespace whizbang
