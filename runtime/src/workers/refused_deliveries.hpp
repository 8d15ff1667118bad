// Refused deliveries a transport cannot keep: one inbox dead letter per distinct content.
//
// A transport with dead letters of its own (RabbitMQ: `{queue}.dlq`) keeps what the inbox's door
// refuses (delivery_door.hpp). One without (in-process, or RabbitMQ with dead_letter_exchanges
// off) would drop it once acknowledged, so the inbox keeps it in its store instead, as an inbox
// row dead-lettered at once (FailureReason::ValidationError) with the reason. Its id is a hash of
// what was delivered (type, transport id, envelope), never the id the delivery claims: it cannot
// take the deduplication slot of the genuine message, and a thousand copies of one refused
// delivery are one dead letter. The kept text is made storable (a PostgreSQL text column takes
// only valid UTF-8 without NUL): invalid bytes and NULs become U+FFFD, and at most
// kMaxKeptEnvelopeBytes of the envelope are kept; the reason says so.
//
//   std::vector<RefusedCopy> refused{{&delivered, "its envelope has no id"}};
//   absl::Status kept = keep_refused_deliveries(store, service_id, refused);
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang {

inline constexpr std::size_t kMaxKeptEnvelopeBytes = 64 * 1024;

struct RefusedCopy {
  const TransportMessage* message = nullptr;
  std::string reason;
};

// Stores each refused delivery not kept before as a dead-lettered inbox row, in one transaction.
absl::Status keep_refused_deliveries(WorkStore& store, const Uuid& receiving_service_id,
                                     std::span<const RefusedCopy> refused);

// The id a refused delivery is kept under: SHA-256 of its type, transport id and envelope, as a
// version 8 UUID (so it never looks like a message id of a sender).
MessageId refused_copy_id(const TransportMessage& message);

// `text` as a store's text column takes it: at most `max_bytes` (cut at a character boundary),
// each ill-formed UTF-8 sequence (utf8.hpp's maximal subpart) and each NUL replaced by U+FFFD.
std::string storable_text(std::string_view text, std::size_t max_bytes);

}  // namespace whizbang
