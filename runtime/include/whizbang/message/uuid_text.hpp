// A Uuid as JSON text: written straight into a rapidjson writer, read back from the text of an
// envelope or payload member (8-4-4-4-12 hex). Part of the JSON codec (json_codec.hpp, which
// includes this); not for direct use.
#pragma once

#include <rapidjson/writer.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "whizbang/ids/uuid.hpp"

namespace whizbang::internal {

// `id` as a JSON string. Its text never needs escaping, so it is written as it is: no buffer on
// the heap, no escaping pass (an envelope holds half a dozen).
template <class Writer>
void write_uuid_string(Writer& writer, const Uuid& id) {
  char quoted[Uuid::kTextSize + 2];
  quoted[0] = '"';
  id.write_text(quoted + 1);
  quoted[Uuid::kTextSize + 1] = '"';
  writer.RawValue(quoted, sizeof quoted, rapidjson::kStringType);
}

namespace json_codec_detail {

// Each byte's value as a hex digit; 0xff for a byte that is not one.
inline constexpr std::array<std::uint8_t, 256> kHexDigit = [] {
  std::array<std::uint8_t, 256> digits{};
  for (std::uint8_t& digit : digits) digit = 0xff;
  for (int c = '0'; c <= '9'; ++c) digits[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) digits[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) digits[c] = static_cast<std::uint8_t>(c - 'A' + 10);
  return digits;
}();

// Where each of a uuid's 16 bytes starts in its 8-4-4-4-12 text.
inline constexpr std::array<std::uint8_t, 16> kUuidByteAt = {0,  2,  4,  6,  9,  11, 14, 16,
                                                             19, 21, 24, 26, 28, 30, 32, 34};

}  // namespace json_codec_detail

// The 8-4-4-4-12 text of a uuid (either case), nullopt when it is anything else. Every digit is
// read by a table and the verdict taken once at the end: an envelope holds half a dozen ids, and
// a digit-by-digit loop with a branch per character was most of their reading.
inline std::optional<Uuid> parse_uuid(std::string_view text) {
  if (text.size() != Uuid::kTextSize || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
      text[23] != '-') {
    return std::nullopt;
  }
  using json_codec_detail::kHexDigit;
  using json_codec_detail::kUuidByteAt;
  Uuid::Bytes bytes{};
  std::uint8_t not_hex = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::uint8_t high = kHexDigit[static_cast<unsigned char>(text[kUuidByteAt[i]])];
    const std::uint8_t low = kHexDigit[static_cast<unsigned char>(text[kUuidByteAt[i] + 1])];
    not_hex |= high | low;
    bytes[i] = static_cast<std::uint8_t>((high << 4) | (low & 0x0f));
  }
  if ((not_hex & 0xf0) != 0) return std::nullopt;
  return Uuid(bytes);
}

}  // namespace whizbang::internal
