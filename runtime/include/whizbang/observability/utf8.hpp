// Well-formed UTF-8 for text that reaches operators and strict parsers (log lines, the CLI's
// tables and --json documents, Prometheus labels): a message type, a destination or an error is
// whatever bytes a sender or a failing handler wrote, and one ill-formed byte makes a whole JSON
// document or Prometheus scrape unreadable.
//
// utf8_sequence() measures the sequence that starts at a position as the Unicode standard defines
// well-formed UTF-8 (its Table 3-7, RFC 3629): no overlong forms, no surrogates, nothing past
// U+10FFFF. An ill-formed sequence is measured as its *maximal subpart*, the bytes one U+FFFD
// replaces (Unicode's recommended practice, which WHATWG encoders and ICU follow): a lead byte and
// the continuation bytes that were still possible after it, or one byte. valid_utf8() replaces
// each such part with U+FFFD; printable() (printable.hpp) shows its bytes as \xNN instead.
//
//   whizbang::valid_utf8("caf\xc3\xa9 \xff")   // "café �" (\xff became U+FFFD)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace whizbang {

// U+FFFD REPLACEMENT CHARACTER, UTF-8 encoded.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";

struct Utf8Sequence {
  std::size_t length = 1;  // bytes (1–4); for an ill-formed sequence, its maximal subpart
  bool valid = true;
};

// The sequence at text[at] (at < text.size()).
inline Utf8Sequence utf8_sequence(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return {1, true};
  // The range the second byte must fall in, and how many continuation bytes follow the lead.
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  std::size_t continuations = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuations = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuations = 2;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates (U+D800..U+DFFF)
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuations = 3;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return {1, false};  // a continuation byte, C0/C1 (overlong) or F5..FF
  }
  for (std::size_t k = 1; k <= continuations; ++k) {
    if (at + k >= text.size()) return {k, false};  // truncated
    const unsigned char next = byte(at + k);
    if (next < low || next > high) return {k, false};
    low = 0x80;
    high = 0xBF;
  }
  return {continuations + 1, true};
}

// Whether `text` is well-formed UTF-8 throughout.
inline bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Sequence sequence = utf8_sequence(text, i);
    if (!sequence.valid) return false;
    i += sequence.length;
  }
  return true;
}

// `text` with each ill-formed part replaced by U+FFFD; well-formed text is returned as it is.
inline std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Sequence sequence = utf8_sequence(text, i);
    if (sequence.valid) {
      out.append(text.substr(i, sequence.length));
    } else {
      out.append(kUtf8Replacement);
    }
    i += sequence.length;
  }
  return out;
}

}  // namespace whizbang
