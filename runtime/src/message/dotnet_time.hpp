// The time encodings Whizbang .NET writes in envelopes (docs/guide/13-rabbitmq.md, "On the wire"):
// - a timestamp is an ISO-8601 string with an offset, "2026-03-09T17:30:01.693249+00:00"
//   (fraction trimmed of trailing zeros, UTC written as +00:00);
// - a duration is a TimeSpan in its "c" format, "[-][d.]hh:mm:ss[.fffffff]".
// Readers accept what .NET's do: 0-7 fractional digits, "Z" or any "+hh:mm"/"-hh:mm" offset, and
// no offset at all (UTC).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "whizbang/message/envelope.hpp"

namespace whizbang::dotnet_time {

// A formatted timestamp or duration, on the stack: the envelope writer formats two per hop and
// per record, and a timestamp is longer than a std::string holds without allocating.
class TimeText {
 public:
  static constexpr std::size_t kCapacity = 64;  // the longest text either format makes is 48
  std::string_view view() const { return {data_, size_}; }
  void push(char c) { data_[size_++] = c; }
  // Callers keep within kCapacity (the formats' longest text).
  void append(std::string_view text) {
    if (text.empty()) return;  // memcpy may not be given the null data of an empty view
    std::memcpy(data_ + size_, text.data(), text.size());
    size_ += text.size();
  }

 private:
  char data_[kCapacity];
  std::size_t size_ = 0;
};

// Microsecond precision (what the runtime's clocks keep in envelopes).
TimeText timestamp_text(TimePoint time);
void append_timestamp(std::string& out, TimePoint time);
std::optional<TimePoint> parse_timestamp(std::string_view text);

TimeText timespan_text(std::chrono::microseconds duration);
void append_timespan(std::string& out, std::chrono::microseconds duration);
// Sub-microsecond ticks are dropped.
std::optional<std::chrono::microseconds> parse_timespan(std::string_view text);

}  // namespace whizbang::dotnet_time
