// What the inbox's door made of a delivered batch (InboxWorker::admit, inbox_receiving.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "delivery_door.hpp"
#include "whizbang/observability/tracer.hpp"
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
  std::size_t own_dropped = 0;      // this service's own events, dropped (drop_own_event)
  // Tracing on: each row's receive span (parallel to rows), ended when the delivery is settled;
  // and the rows the store took as new, when the store said which (the others were duplicates).
  std::vector<Span> spans;
  std::optional<std::set<MessageId>> newly_stored;
};

// Whether a store's error is the whole store's condition (down, full, corrupt, a transaction it
// aborted) rather than one message's: a batch failing so is offered again whole, and no message
// is blamed for it.
bool store_wide(const absl::Status& status);

// Tracing on: the receive span (Consumer) of one admitted delivery, under its last hop's `tp`;
// and the end of a delivered batch's receive spans, told which rows were duplicates and whether
// the delivery failed.
Span start_receive_span(const Tracer& tracer, std::string_view system,
                        const TransportMessage& message, const InboxMessage& row,
                        const std::optional<TraceContext>& parent);
void finish_receive_spans(std::vector<Span>& spans, const std::vector<InboxMessage>& rows,
                          const std::optional<std::set<MessageId>>& newly_stored,
                          std::size_t duplicates, const absl::Status& outcome);

}  // namespace whizbang
