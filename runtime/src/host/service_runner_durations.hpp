// Durations as the runner's flags write them: "500ms", "30s", "5m", "1h" (--retry,
// --circuit-breaker).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/strings/numbers.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang::runner_durations {

inline std::optional<std::chrono::microseconds> duration_of(std::string_view text) {
  const auto suffixed =
      [&](std::string_view suffix,
          std::int64_t micros_per_unit) -> std::optional<std::chrono::microseconds> {
    if (!text.ends_with(suffix)) return std::nullopt;
    std::int64_t count = 0;
    if (!absl::SimpleAtoi(internal::absl_view(text.substr(0, text.size() - suffix.size())),
                          &count) ||
        count < 0 || count > std::int64_t{1} << 40) {
      return std::nullopt;
    }
    return std::chrono::microseconds(count * micros_per_unit);
  };
  if (auto ms = suffixed("ms", 1000)) return ms;
  if (auto s = suffixed("s", 1'000'000)) return s;
  if (auto m = suffixed("m", 60'000'000)) return m;
  return suffixed("h", 3'600'000'000);
}

}  // namespace whizbang::runner_durations
