#include "whizbang/observability/span_data.hpp"

#include <algorithm>
#include <cstdint>

namespace whizbang {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

template <std::size_t N>
void write_hex(const std::array<std::uint8_t, N>& bytes, char* out) {
  for (std::size_t i = 0; i < N; ++i) {
    out[2 * i] = kHexDigits[bytes[i] >> 4];
    out[2 * i + 1] = kHexDigits[bytes[i] & 0x0f];
  }
}

template <std::size_t N>
std::string to_hex(const std::array<std::uint8_t, N>& bytes) {
  std::string out(2 * N, '0');
  write_hex(bytes, out.data());
  return out;
}

// Lower-case hex only: W3C trace context forbids upper case. A table: every received envelope's
// traceparent is read on the delivery path.
constexpr std::array<std::int8_t, 256> kHexValues = [] {
  std::array<std::int8_t, 256> values{};
  values.fill(-1);
  for (int i = 0; i < 10; ++i) values['0' + i] = static_cast<std::int8_t>(i);
  for (int i = 0; i < 6; ++i) values['a' + i] = static_cast<std::int8_t>(10 + i);
  return values;
}();

template <std::size_t N>
bool from_hex(std::string_view text, std::array<std::uint8_t, N>& bytes) {
  if (text.size() != 2 * N) return false;
  int bad = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const int high = kHexValues[static_cast<unsigned char>(text[2 * i])];
    const int low = kHexValues[static_cast<unsigned char>(text[2 * i + 1])];
    bad |= high | low;  // negative once any digit is not hex
    bytes[i] =
        static_cast<std::uint8_t>(static_cast<unsigned>(high) << 4 | static_cast<unsigned>(low));
  }
  return bad >= 0;
}

template <std::size_t N>
bool all_zero(const std::array<std::uint8_t, N>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

}  // namespace

bool TraceId::valid() const { return !all_zero(bytes); }
std::string TraceId::hex() const { return to_hex(bytes); }
bool SpanId::valid() const { return !all_zero(bytes); }
std::string SpanId::hex() const { return to_hex(bytes); }

std::string TraceContext::traceparent() const {
  // Written in place: every traced hop carries one.
  std::string out = "00-................................-................-..";
  write_hex(trace_id.bytes, out.data() + 3);
  write_hex(span_id.bytes, out.data() + 36);
  out[53] = kHexDigits[flags >> 4];
  out[54] = kHexDigits[flags & 0x0f];
  return out;
}

std::optional<TraceContext> TraceContext::parse(std::string_view text) {
  // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55 characters.
  constexpr std::size_t kLength = 55;
  if (text.size() < kLength) return std::nullopt;
  std::array<std::uint8_t, 1> version{};
  if (!from_hex(text.substr(0, 2), version) || version[0] == 0xff) return std::nullopt;
  // Version 00 is exactly 55 characters; a later version may append "-..." fields.
  if (version[0] == 0 ? text.size() != kLength : (text.size() > kLength && text[kLength] != '-')) {
    return std::nullopt;
  }
  if (text[2] != '-' || text[35] != '-' || text[52] != '-') return std::nullopt;
  TraceContext context;
  std::array<std::uint8_t, 1> flags{};
  if (!from_hex(text.substr(3, 32), context.trace_id.bytes) ||
      !from_hex(text.substr(36, 16), context.span_id.bytes) ||
      !from_hex(text.substr(53, 2), flags)) {
    return std::nullopt;
  }
  if (!context.trace_id.valid() || !context.span_id.valid()) return std::nullopt;
  context.flags = flags[0];
  return context;
}

}  // namespace whizbang
