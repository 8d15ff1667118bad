// Small text helpers shared by the runtime's sources.
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace whizbang::internal {

// ASCII case-insensitive equality (service names, owned domains).
inline bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// `text` without leading and trailing spaces (the parts of a .NET assembly-qualified name).
inline std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace whizbang::internal
