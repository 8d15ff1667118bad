// printable(): text as an operator may safely see it. Control characters (C0, DEL and the
// UTF-8-encoded C1 controls) and the bytes of ill-formed UTF-8 (utf8.hpp) are written as \xNN,
// everything else as is, so the result is valid UTF-8 with no control character in it. Log lines
// (logging.hpp), the CLI's text tables and its error lines, and Prometheus labels
// (prometheus.hpp) show stored and received text through it: type names, ids and reasons often
// come from a sender, who could otherwise forge a log line with a newline, drive the operator's
// terminal with escape sequences, or make a whole log or scrape unreadable to strict parsers.
//
//   whizbang::printable("a\nb")      // "a\x0ab"
//   whizbang::printable("bad \xff")  // "bad \xff" (four visible characters for the byte)
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "whizbang/observability/utf8.hpp"

namespace whizbang {

inline std::string printable(std::string_view text) {
  const auto plain = [](char c) {  // printable ASCII: shown as it is
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x7F;
  };
  if (std::all_of(text.begin(), text.end(), plain)) return std::string(text);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string escaped;
  escaped.reserve(text.size() + 8);
  const auto hex = [&](unsigned char byte) {
    escaped += "\\x";
    escaped += kHex[byte >> 4];
    escaped += kHex[byte & 0xF];
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (plain(text[i])) {
        escaped += text[i];
      } else {
        hex(byte);
      }
      ++i;
      continue;
    }
    const Utf8Sequence sequence = utf8_sequence(text, i);
    if (!sequence.valid) {
      for (std::size_t k = 0; k < sequence.length; ++k) {
        hex(static_cast<unsigned char>(text[i + k]));
      }
    } else if (byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      hex(static_cast<unsigned char>(text[i + 1]));  // a C1 control, U+0080..U+009F
    } else {
      escaped.append(text.substr(i, sequence.length));
    }
    i += sequence.length;
  }
  return escaped;
}

}  // namespace whizbang
