#include "whizbang/ids/uuid.hpp"

#include <cstring>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "fmt/format.h"

namespace whizbang {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<Uuid> Uuid::parse(std::string_view text) {
  const bool hyphenated = text.size() == 36;
  if (!hyphenated && text.size() != 32) {
    return absl::InvalidArgumentError(fmt::format(
        "malformed uuid '{}': expected 36 characters (8-4-4-4-12) or 32 hex digits", text));
  }
  if (hyphenated) {
    for (std::size_t pos : {8u, 13u, 18u, 23u}) {
      if (text[pos] != '-') {
        return absl::InvalidArgumentError(
            fmt::format("malformed uuid '{}': expected '-' at position {}", text, pos));
      }
    }
  }
  Bytes bytes{};
  std::size_t nibble = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (hyphenated && (i == 8 || i == 13 || i == 18 || i == 23)) continue;
    const int value = hex_value(text[i]);
    if (value < 0) {
      return absl::InvalidArgumentError(
          fmt::format("malformed uuid '{}': '{}' is not hex", text, text[i]));
    }
    bytes[nibble / 2] =
        static_cast<std::uint8_t>(bytes[nibble / 2] | (value << (nibble % 2 ? 0 : 4)));
    ++nibble;
  }
  return Uuid(bytes);
}

// Two 8-byte loads rather than a byte loop: every derived id checks its source.
bool Uuid::is_nil() const {
  std::uint64_t halves[2];
  std::memcpy(halves, bytes_.data(), sizeof(halves));
  return (halves[0] | halves[1]) == 0;
}

void Uuid::append_n_string(std::string& out) const {
  for (std::uint8_t b : bytes_) {
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 0x0F]);
  }
}

std::string Uuid::to_n_string() const {
  std::string out;
  out.reserve(32);
  append_n_string(out);
  return out;
}

void Uuid::write_text(char* out) const {
  for (std::size_t i = 0; i < bytes_.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *out++ = '-';
    *out++ = kHexDigits[bytes_[i] >> 4];
    *out++ = kHexDigits[bytes_[i] & 0x0F];
  }
}

std::string Uuid::to_string() const {
  std::string out(kTextSize, '\0');
  write_text(out.data());
  return out;
}

}  // namespace whizbang

std::size_t std::hash<whizbang::Uuid>::operator()(const whizbang::Uuid& id) const noexcept {
  return absl::Hash<whizbang::Uuid>{}(id);
}
