// MessageId: a UUIDv7 message identity.
//
// Layout (bit 0 = most significant bit of the textual form):
//   0..47   Unix epoch milliseconds
//   48..51  version 0111
//   52..63  monotonic counter, high 12 bits
//   64..65  variant 10
//   66..79  monotonic counter, low 14 bits
//   80..127 random
//
// MessageId::mint() is thread-safe and process-wide monotonic: the millisecond and the 26-bit
// counter live in one atomic word advanced by compare-and-swap, so ids minted one after another
// sort in minting order, within a millisecond and across threads alike. (A per-thread counter would
// be cheaper but would let two threads' ids interleave out of order; the cascade relies on "issued
// later sorts later".)
//
//   whizbang::MessageId id = whizbang::MessageId::mint();
//   auto parsed = whizbang::MessageId::parse("0190f3c4-...");   // rejects non-v7 ids
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/ids/uuid.hpp"

namespace whizbang {

class MessageId {
 public:
  // The nil id: "no id". Never produced by mint() or derive().
  constexpr MessageId() = default;

  // A fresh time-ordered id.
  static MessageId mint();

  // Validates that `id` is version 7 with the RFC variant, as the reference's MessageId.From does.
  static absl::StatusOr<MessageId> from(const Uuid& id);
  static absl::StatusOr<MessageId> parse(std::string_view text);

  // Wraps without validation. For ids known to be v7 (layout code and trusted stores).
  static constexpr MessageId from_trusted(const Uuid& id) { return MessageId(id); }

  const Uuid& uuid() const { return uuid_; }
  bool is_nil() const { return uuid_.is_nil(); }
  std::string to_string() const { return uuid_.to_string(); }
  std::string to_n_string() const { return uuid_.to_n_string(); }

  // Milliseconds since the Unix epoch held in bits 0..47.
  std::int64_t unix_millis() const;
  std::chrono::system_clock::time_point timestamp() const;
  // The 26-bit counter from bits 52..63 and 66..79.
  std::uint32_t counter() const;

  friend constexpr auto operator<=>(const MessageId&, const MessageId&) = default;
  friend constexpr bool operator==(const MessageId&, const MessageId&) = default;

  template <typename H>
  friend H AbslHashValue(H h, const MessageId& id) {
    return H::combine(std::move(h), id.uuid_);
  }

 private:
  constexpr explicit MessageId(const Uuid& id) : uuid_(id) {}
  Uuid uuid_;
};

// True for version 7 with the RFC 9562 variant.
bool is_v7(const Uuid& id);

}  // namespace whizbang
