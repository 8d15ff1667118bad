// Small text helpers shared by the runtime's sources.
#pragma once

#include <string_view>

namespace whizbang::internal {

// `text` without leading and trailing spaces (the parts of a .NET assembly-qualified name).
// Spaces only, unlike absl::StripAsciiWhitespace: a tab or newline stays part of the name.
inline std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace whizbang::internal
