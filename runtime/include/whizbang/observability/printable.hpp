// printable(): text as an operator may safely see it. Control characters (C0, DEL and the
// UTF-8-encoded C1 controls) are written as \xNN, everything else as is. Log lines
// (logging.hpp) and the CLI's text tables show stored and received text through it: type names,
// ids and reasons often come from a sender, who could otherwise forge a log line with a newline
// or drive the operator's terminal with escape sequences.
//
//   whizbang::printable("a\nb")   // "a\x0ab"
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace whizbang {

inline std::string printable(std::string_view text) {
  const auto c1_at = [&](std::size_t i) {  // U+0080..U+009F, encoded C2 80..C2 9F
    return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
           static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
           static_cast<unsigned char>(text[i + 1]) <= 0x9F;
  };
  const auto control = [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7F || byte == 0xC2;  // 0xC2: maybe a C1, looked at below
  };
  if (std::none_of(text.begin(), text.end(), control)) return std::string(text);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string escaped;
  escaped.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = c1_at(i);
    if (!c1 && byte >= 0x20 && byte != 0x7F) {
      escaped += text[i];
      continue;
    }
    if (c1) byte = static_cast<unsigned char>(text[++i]);
    escaped += "\\x";
    escaped += kHex[byte >> 4];
    escaped += kHex[byte & 0xF];
  }
  return escaped;
}

}  // namespace whizbang
