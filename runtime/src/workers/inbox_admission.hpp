// What the inbox's door made of a delivered batch (InboxWorker::admit, inbox_receiving.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "whizbang/store/outbox_message.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "workers/delivery_door.hpp"

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

}  // namespace whizbang
