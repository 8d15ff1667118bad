// Editing serialized envelopes the way an attacker on the transport would.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace security_test {

// `text` with its first `from` replaced by `to`; a test failure when `from` is not there (the
// tampering would silently test nothing).
inline std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace security_test
