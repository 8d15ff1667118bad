// Uuid: 16 raw bytes in RFC 9562 (big-endian, textual) order, with parse and format.
//
// Uuid holds any id, whatever its version; MessageId (message_id.hpp) is the validated v7 id the
// runtime mints. Ordering is byte-lexicographic, which equals the textual order.
//
//   auto id = whizbang::Uuid::parse("239ec2c0-63fe-7958-941e-0e9af768064f");
//   if (id.ok()) std::cout << id->to_string() << " v" << id->version();
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace whizbang {

class Uuid {
 public:
  using Bytes = std::array<std::uint8_t, 16>;

  constexpr Uuid() = default;
  constexpr explicit Uuid(const Bytes& bytes) : bytes_(bytes) {}

  // Accepts the hyphenated 36-character form and the 32-hex "N" form, either case.
  static absl::StatusOr<Uuid> parse(std::string_view text);

  const Bytes& bytes() const { return bytes_; }
  bool is_nil() const;
  int version() const { return bytes_[6] >> 4; }
  // The two-bit RFC variant field (0b10 for RFC 9562 ids).
  int variant_bits() const { return bytes_[8] >> 6; }

  // Hyphenated lowercase: 8-4-4-4-12.
  std::string to_string() const;
  static constexpr std::size_t kTextSize = 36;
  // The to_string() text into `out` (kTextSize characters, no terminator), without allocating.
  void write_text(char* out) const;
  // 32 lowercase hex digits, no hyphens (the .NET "N" format).
  std::string to_n_string() const;
  // Appends the "N" form to `out` without allocating when `out` has capacity.
  void append_n_string(std::string& out) const;

  friend constexpr auto operator<=>(const Uuid&, const Uuid&) = default;
  friend constexpr bool operator==(const Uuid&, const Uuid&) = default;

  template <typename H>
  friend H AbslHashValue(H h, const Uuid& id) {
    return H::combine_contiguous(std::move(h), id.bytes_.data(), id.bytes_.size());
  }

 private:
  Bytes bytes_{};
};

}  // namespace whizbang

template <>
struct std::hash<whizbang::Uuid> {
  std::size_t operator()(const whizbang::Uuid& id) const noexcept;
};
