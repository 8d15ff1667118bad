#include "refused_deliveries.hpp"

#include <algorithm>
#include <vector>

#include "delivery_door.hpp"
#include "fmt/format.h"
#include "whizbang/internal/sha256.hpp"
#include "whizbang/observability/utf8.hpp"

namespace whizbang {

std::string storable_text(std::string_view text, std::size_t max_bytes) {
  std::string kept;
  kept.reserve(std::min(text.size(), max_bytes));
  for (std::size_t at = 0; at < text.size();) {
    // A NUL is as unstorable as an ill-formed sequence (PostgreSQL's text ends at it).
    const Utf8Sequence sequence =
        text[at] == '\0' ? Utf8Sequence{1, false} : utf8_sequence(text, at);
    const std::string_view piece =
        sequence.valid ? text.substr(at, sequence.length) : kUtf8Replacement;
    if (kept.size() + piece.size() > max_bytes) break;
    kept.append(piece);
    at += sequence.length;
  }
  return kept;
}

MessageId refused_copy_id(const TransportMessage& message) {
  std::string content;
  content.reserve(message.message_type.size() + message.envelope_json.size() + 40);
  content.append(message.message_type).push_back('\0');
  content.append(message.message_id.to_string()).push_back('\0');
  content.append(message.envelope_json);
  const internal::Sha256Digest digest = internal::sha256(content);
  Uuid::Bytes bytes{};
  std::copy_n(digest.begin(), bytes.size(), bytes.begin());
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0F) | 0x80);  // version 8
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3F) | 0x80);  // RFC variant
  return MessageId::from_trusted(Uuid(bytes));
}

absl::Status keep_refused_deliveries(WorkStore& store, const Uuid& receiving_service_id,
                                     std::span<const RefusedCopy> refused) {
  if (refused.empty()) return absl::OkStatus();
  std::vector<InboxMessage> rows;
  rows.reserve(refused.size());
  for (const RefusedCopy& copy : refused) {
    const TransportMessage& message = *copy.message;
    InboxMessage row;
    row.message_id = refused_copy_id(message);
    row.handler_name = std::string(kRefusedDeliveryHandler);
    row.message_type = storable_text(message.message_type, kMaxMessageTypeBytes);
    row.envelope_json = storable_text(message.envelope_json, kMaxKeptEnvelopeBytes);
    row.is_event = message.is_event;
    rows.push_back(std::move(row));
  }
  Transaction transaction(store);
  if (!transaction.status().ok()) return transaction.status();
  absl::StatusOr<std::vector<MessageId>> stored =
      store.store_inbox_messages(rows, receiving_service_id);
  if (!stored.ok()) return stored.status();
  std::vector<WorkFailure> failures;
  for (const MessageId& id : *stored) {  // copies kept before are dead letters already
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].message_id != id) continue;
      const TransportMessage& message = *refused[i].message;
      const bool cut = rows[i].envelope_json.size() < message.envelope_json.size() &&
                       message.envelope_json.size() > kMaxKeptEnvelopeBytes;
      failures.push_back(
          {WorkSource::Inbox, id, MessageStatus::None,
           fmt::format("delivery {} refused: {}{}", message.message_id.to_string(),
                       refused[i].reason,
                       cut ? fmt::format(" (the first {} of its {} bytes kept)",
                                         rows[i].envelope_json.size(), message.envelope_json.size())
                           : std::string()),
           FailureReason::ValidationError, /*dead_letter=*/true});
      break;
    }
  }
  if (absl::Status status = store.complete_work({}, failures); !status.ok()) return status;
  return transaction.commit();
}

}  // namespace whizbang
