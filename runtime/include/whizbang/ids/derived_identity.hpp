// Derived ids: deterministic message ids computed from "what produced this message", so that a
// retried handling re-derives the ids of its first run and the store can drop the duplicates.
//
// Layout (shared by every derivation; bit 0 = most significant bit of the textual form):
//   0..79    the source id's first 80 bits (ms + counter), version forced to 7, variant to 10
//   80..91   the ordinal, saturating at 4095
//   92..127  low nibble of SHA-256[0], then SHA-256[1..4] of the canonical string
//
// A derived id sorts where its source sorts, and within one source in ordinal order.
//
//   auto id = whizbang::EmissionIdentity::derive(inbound_id, "orders", "shop::CreateOrderReceptor",
//                                                "shop::OrderCreated", 0);
//   auto child = whizbang::CompositeChildIdentity::derive(composite_id, 2, "shop::OrderLine");
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"

namespace whizbang {

// The ordinal field holds 12 bits; larger ordinals saturate here (the hash still covers them).
inline constexpr std::int64_t kMaxOrdinalField = 4095;

struct DerivedIdentity {
  // Lays out a derived id: `source`'s first 80 bits, `ordinal` (saturated) and 36 bits of
  // SHA-256(`canonical`). The one layout function every derivation goes through.
  // Errors: nil source, negative ordinal.
  static absl::StatusOr<MessageId> from_canonical(const Uuid& source, std::int64_t ordinal,
                                                  std::string_view canonical);
};

struct EmissionIdentity {
  // Canonical string: "whizbang.emission.v2\n{source:N}\n{service}\n{handler}\n{type}\n{ordinal}".
  static constexpr std::string_view kCanonicalPrefix = "whizbang.emission.v2";

  // `handler` may be empty (no handler name known). `emitted_type` is the message's wire name.
  static absl::StatusOr<MessageId> derive(const Uuid& source, std::string_view service,
                                          std::string_view handler, std::string_view emitted_type,
                                          std::int64_t ordinal);
  static std::string canonical(const Uuid& source, std::string_view service,
                               std::string_view handler, std::string_view emitted_type,
                               std::int64_t ordinal);
};

struct CompositeChildIdentity {
  // Canonical string: "whizbang.composite-child.v2\n{composite:N}\n{ordinal}\n{type}".
  static constexpr std::string_view kCanonicalPrefix = "whizbang.composite-child.v2";

  static absl::StatusOr<MessageId> derive(const Uuid& composite, std::int64_t ordinal,
                                          std::string_view child_type);
  static std::string canonical(const Uuid& composite, std::int64_t ordinal,
                               std::string_view child_type);
};

// The id of a message sent or published once for an idempotency key the caller chose (a request
// id): the same service, message type and key give the same id, so a retried request stores the
// same outbox row and its duplicate is dropped (docs/guide/05-emission-identity.md, "Ids from an
// idempotency key"). There is no source message: the layout's source is the second half of the
// canonical string's SHA-256, so the id carries no time and sorts anywhere.
struct DispatchKeyIdentity {
  // Canonical string: "whizbang.dispatch-key.v1\n{service}\n{type}\n{key}", `type` the message's
  // wire name.
  static constexpr std::string_view kCanonicalPrefix = "whizbang.dispatch-key.v1";

  static MessageId derive(std::string_view service, std::string_view type, std::string_view key);
  static std::string canonical(std::string_view service, std::string_view type,
                               std::string_view key);
};

}  // namespace whizbang
