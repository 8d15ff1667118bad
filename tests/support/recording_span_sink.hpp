// A SpanSink that keeps every finished span, for tests that assert what was traced.
#pragma once

#include <whizbang/observability/span_data.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace whizbang_test {

class RecordingSpanSink final : public whizbang::SpanSink {
 public:
  void on_end(whizbang::SpanData span) override {
    std::lock_guard lock(mutex_);
    spans_.push_back(std::move(span));
  }
  void flush(std::chrono::milliseconds) override {}

  std::vector<whizbang::SpanData> spans() const {
    std::lock_guard lock(mutex_);
    return spans_;
  }
  // The finished spans named `name`, in the order they ended.
  std::vector<whizbang::SpanData> named(std::string_view name) const {
    std::vector<whizbang::SpanData> found;
    for (whizbang::SpanData& span : spans()) {
      if (span.name == name) found.push_back(std::move(span));
    }
    return found;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    spans_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<whizbang::SpanData> spans_;
};

// The value of a string attribute, or nullopt.
inline std::optional<std::string> string_attribute(const whizbang::SpanData& span,
                                                   std::string_view key) {
  for (const whizbang::SpanAttribute& attribute : span.attributes) {
    if (attribute.key != key) continue;
    if (const auto* text = std::get_if<std::string>(&attribute.value)) return *text;
  }
  return std::nullopt;
}

inline std::optional<std::int64_t> int_attribute(const whizbang::SpanData& span,
                                                 std::string_view key) {
  for (const whizbang::SpanAttribute& attribute : span.attributes) {
    if (attribute.key != key) continue;
    if (const auto* value = std::get_if<std::int64_t>(&attribute.value)) return *value;
  }
  return std::nullopt;
}

inline bool bool_attribute(const whizbang::SpanData& span, std::string_view key) {
  for (const whizbang::SpanAttribute& attribute : span.attributes) {
    if (attribute.key != key) continue;
    if (const auto* value = std::get_if<bool>(&attribute.value)) return *value;
  }
  return false;
}

}  // namespace whizbang_test
