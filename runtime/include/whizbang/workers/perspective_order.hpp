// The order in which a stream's events apply to a perspective (docs/guide/07-perspectives.md):
// when they occurred (the envelope's timestamp, its first hop's), ties broken by their version in
// the stream. Events usually arrive in that order (the stream's version order); one appended late
// by another service arrives after an event that occurred later, and the perspective rewinds the
// stream's model to apply it in its place. A rebuild replays a stream in the same order, so a
// rebuilt model equals the one built live.
#pragma once

#include <compare>
#include <cstdint>

#include "whizbang/message/envelope.hpp"

namespace whizbang {

struct PerspectiveOrderKey {
  // Microseconds since the Unix epoch; 0 when the envelope has no timestamp.
  std::int64_t occurred_at_us = 0;
  std::int64_t stream_version = 0;
  friend auto operator<=>(const PerspectiveOrderKey&, const PerspectiveOrderKey&) = default;
};

inline PerspectiveOrderKey perspective_order_key(const Envelope& event,
                                                 std::int64_t stream_version) {
  const std::optional<TimePoint> occurred = event.timestamp();
  return {occurred ? to_unix_micros(*occurred) : 0, stream_version};
}

}  // namespace whizbang
