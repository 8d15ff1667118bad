// The Abseil this runtime builds against (Debian's) has its own absl::string_view rather than an
// alias of std::string_view: absl_view() hands a std::string_view to Abseil's string functions.
//
//   absl::EqualsIgnoreCase(absl_view(namespace_name), absl_view(domain));
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace whizbang::internal {

inline absl::string_view absl_view(std::string_view text) { return {text.data(), text.size()}; }
inline std::string_view std_view(absl::string_view text) { return {text.data(), text.size()}; }

}  // namespace whizbang::internal
