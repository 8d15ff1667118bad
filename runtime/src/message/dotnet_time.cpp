#include "dotnet_time.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace whizbang::dotnet_time {
namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;
constexpr std::int64_t kSecondsPerDay = 86'400;

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct Civil {
  std::int64_t year;
  unsigned month;
  unsigned day;
};

Civil civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

// "00" to "99": a time's digits two per division. One digit per division made each digit wait
// for the one before (a chain of multiplies), which cost a serialize more time than its
// instruction count said.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (int i = 0; i < 100; ++i) {
    pairs[static_cast<std::size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    pairs[static_cast<std::size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// `value` (not negative) in decimal, zero-padded to `width` digits (at most 20).
void append_digits(TimeText& out, std::int64_t value, int width) {
  char digits[20];
  char* const end = digits + sizeof digits;
  char* at = end;
  auto rest = static_cast<std::uint64_t>(value < 0 ? 0 : value);
  while (rest >= 100) {
    const std::size_t pair = 2 * static_cast<std::size_t>(rest % 100);
    rest /= 100;
    at -= 2;
    at[0] = kDigitPairs[pair];
    at[1] = kDigitPairs[pair + 1];
  }
  if (rest >= 10) {
    at -= 2;
    at[0] = kDigitPairs[2 * rest];
    at[1] = kDigitPairs[2 * rest + 1];
  } else {
    *--at = static_cast<char>('0' + rest);
  }
  while (end - at < width && at > digits) *--at = '0';
  // A byte at a time: a memcpy of a length known only here is a library call, dearer than
  // the few digits it copies.
  while (at < end) out.push(*at++);
}

// 0-99 as two digits: a clock's fields and a date's month and day.
void append_two_digits(TimeText& out, std::int64_t value) {
  const auto pair = 2 * static_cast<std::size_t>(value);
  out.push(kDigitPairs[pair]);
  out.push(kDigitPairs[pair + 1]);
}

// "hh:mm:ss" of a second within a day: the clock part of both formats.
void append_clock(TimeText& out, std::int64_t second_of_day) {
  append_two_digits(out, second_of_day / 3600);
  out.push(':');
  append_two_digits(out, second_of_day / 60 % 60);
  out.push(':');
  append_two_digits(out, second_of_day % 60);
}

// A cursor over the text being parsed.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool done() const { return at_ == text_.size(); }
  char peek() const { return done() ? '\0' : text_[at_]; }
  bool take(char c) {
    if (peek() != c) return false;
    ++at_;
    return true;
  }
  // Exactly `count` digits.
  std::optional<std::int64_t> digits(std::size_t count) {
    if (at_ + count > text_.size()) return std::nullopt;
    std::int64_t value = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const char c = text_[at_ + i];
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    at_ += count;
    return value;
  }
  // 1 to `max` digits; the count read in `count`.
  std::optional<std::int64_t> some_digits(std::size_t max, std::size_t& count) {
    std::int64_t value = 0;
    const std::size_t end = std::min(text_.size(), at_ + max);
    std::size_t at = at_;
    for (; at < end; ++at) {
      const unsigned digit = static_cast<unsigned char>(text_[at]) - unsigned{'0'};
      if (digit > 9) break;
      value = value * 10 + digit;
    }
    count = at - at_;
    at_ = at;
    if (count == 0) return std::nullopt;
    return value;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

// ".fffffff" (1-7 digits) as microseconds; 0 when there is no fraction.
std::optional<std::int64_t> fraction_micros(Cursor& cursor) {
  if (!cursor.take('.')) return 0;
  std::size_t count = 0;
  std::optional<std::int64_t> value = cursor.some_digits(7, count);
  if (!value) return std::nullopt;
  static constexpr std::int64_t kScale[] = {10'000'000, 1'000'000, 100'000, 10'000,
                                            1'000,      100,       10,      1};
  return *value * kScale[count] / 10;  // 7 digits of ticks, then microseconds
}

// The ISO-8601 text of a time in UTC, the fraction trimmed of trailing zeros (how Whizbang .NET
// writes hop timestamps).
void append_iso(TimeText& out, std::int64_t micros) {
  std::int64_t seconds = micros / kMicrosPerSecond;
  std::int64_t fraction = micros % kMicrosPerSecond;
  if (fraction < 0) {
    fraction += kMicrosPerSecond;
    --seconds;
  }
  std::int64_t days = seconds / kSecondsPerDay;
  std::int64_t of_day = seconds % kSecondsPerDay;
  if (of_day < 0) {
    of_day += kSecondsPerDay;
    --days;
  }
  const Civil date = civil_from_days(days);
  append_digits(out, date.year, 4);
  out.push('-');
  append_two_digits(out, date.month);
  out.push('-');
  append_two_digits(out, date.day);
  out.push('T');
  append_clock(out, of_day);
  if (fraction != 0) {
    int width = 6;
    while (fraction % 10 == 0) {
      fraction /= 10;
      --width;
    }
    out.push('.');
    append_digits(out, fraction, width);
  }
  out.append("+00:00");
}

}  // namespace

TimeText timestamp_text(TimePoint time) {
  TimeText text;
  append_iso(text, to_unix_micros(time));
  return text;
}

void append_timestamp(std::string& out, TimePoint time) { out += timestamp_text(time).view(); }

std::optional<TimePoint> parse_timestamp(std::string_view text) {
  // "yyyy-MM-ddThh:mm:ss" stands at fixed places: read in one go, every digit and separator
  // checked with no branch per character (a cursor's step per digit was most of a read).
  constexpr std::string_view kLayout = "0000-00-00T00:00:00";
  if (text.size() < kLayout.size()) return std::nullopt;
  bool well_formed = true;
  const auto digits = [&](std::size_t at, std::size_t count) {
    std::int64_t value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
      const unsigned digit = static_cast<unsigned char>(text[i]) - unsigned{'0'};
      well_formed &= digit <= 9;
      value = value * 10 + digit;
    }
    return value;
  };
  const std::int64_t year = digits(0, 4);
  const std::int64_t month = digits(5, 2);
  const std::int64_t day = digits(8, 2);
  const std::int64_t hour = digits(11, 2);
  const std::int64_t minute = digits(14, 2);
  const std::int64_t second = digits(17, 2);
  const char separator = text[10];
  well_formed &= text[4] == '-' && text[7] == '-' && text[13] == ':' && text[16] == ':' &&
                 (separator == 'T' || separator == 't' || separator == ' ');
  if (!well_formed) return std::nullopt;
  Cursor cursor(text.substr(kLayout.size()));
  const auto micros = fraction_micros(cursor);
  if (!micros) return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::int64_t offset_seconds = 0;
  if (cursor.take('Z') || cursor.take('z')) {
  } else if (cursor.peek() == '+' || cursor.peek() == '-') {
    const int sign = cursor.take('-') ? -1 : (cursor.take('+'), 1);
    const auto offset_hours = cursor.digits(2);
    if (!offset_hours || !cursor.take(':')) return std::nullopt;
    const auto offset_minutes = cursor.digits(2);
    if (!offset_minutes || *offset_hours > 14 || *offset_minutes > 59) return std::nullopt;
    offset_seconds = sign * (*offset_hours * 3600 + *offset_minutes * 60);
  }
  if (!cursor.done()) return std::nullopt;
  const std::int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t seconds =
      days * kSecondsPerDay + hour * 3600 + minute * 60 + second - offset_seconds;
  // TimePoint counts nanoseconds in an int64: about +/-292 years around 1970 fit; beyond that
  // the conversion would overflow, so such a time is refused.
  constexpr std::int64_t kMaxMicros =
      std::chrono::duration_cast<std::chrono::microseconds>(TimePoint::duration::max()).count();
  if (seconds > kMaxMicros / kMicrosPerSecond + 1 ||
      seconds < -(kMaxMicros / kMicrosPerSecond) - 1) {
    return std::nullopt;
  }
  const std::int64_t total = seconds * kMicrosPerSecond + *micros;
  if (total > kMaxMicros || total < -kMaxMicros) return std::nullopt;
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(total)));
}

TimeText timespan_text(std::chrono::microseconds duration) {
  TimeText out;
  // The magnitude as unsigned: the most negative duration has no positive counterpart.
  std::uint64_t micros = static_cast<std::uint64_t>(duration.count());
  if (duration.count() < 0) {
    out.push('-');
    micros = ~micros + 1;
  }
  const auto total_seconds = static_cast<std::int64_t>(micros / kMicrosPerSecond);
  const auto fraction = static_cast<std::int64_t>(micros % kMicrosPerSecond);
  const std::int64_t days = total_seconds / kSecondsPerDay;
  const std::int64_t of_day = total_seconds % kSecondsPerDay;
  if (days > 0) {
    append_digits(out, days, 1);
    out.push('.');
  }
  append_clock(out, of_day);
  if (fraction != 0) {
    out.push('.');
    append_digits(out, fraction * 10, 7);  // ticks of 100 ns, always 7 digits like .NET
  }
  return out;
}

void append_timespan(std::string& out, std::chrono::microseconds duration) {
  out += timespan_text(duration).view();
}

std::optional<std::chrono::microseconds> parse_timespan(std::string_view text) {
  Cursor cursor(text);
  const bool negative = cursor.take('-');
  std::size_t count = 0;
  // "d." or "hh:" first: which one only the separator after the digits tells. Up to 9 digits of
  // days: what microseconds in an int64 reach (.NET's own TimeSpan stops at 8).
  auto first = cursor.some_digits(9, count);
  if (!first) return std::nullopt;
  std::int64_t days = 0;
  std::int64_t hours = *first;
  if (cursor.take('.')) {
    days = *first;
    auto parsed_hours = cursor.some_digits(2, count);
    if (!parsed_hours) return std::nullopt;
    hours = *parsed_hours;
  }
  if (!cursor.take(':')) return std::nullopt;
  const auto minutes = cursor.some_digits(2, count);
  if (!minutes || !cursor.take(':')) return std::nullopt;
  const auto seconds = cursor.some_digits(2, count);
  if (!seconds) return std::nullopt;
  const auto micros = fraction_micros(cursor);
  if (!micros || !cursor.done() || hours > 23 || *minutes > 59 || *seconds > 59) {
    return std::nullopt;
  }
  // The largest day counts overflow an int64 of microseconds: refused, not wrapped. Counted as
  // a magnitude (unsigned): the most negative duration has one more microsecond than the most
  // positive.
  const auto total_seconds =
      static_cast<std::uint64_t>((days * 24 + hours) * 3600 + *minutes * 60 + *seconds);
  constexpr auto kLimit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const std::uint64_t limit = negative ? kLimit + 1 : kLimit;
  if (total_seconds > (limit - static_cast<std::uint64_t>(*micros)) / kMicrosPerSecond) {
    return std::nullopt;
  }
  const std::uint64_t total =
      total_seconds * kMicrosPerSecond + static_cast<std::uint64_t>(*micros);
  if (total > limit) return std::nullopt;
  return std::chrono::microseconds(negative ? static_cast<std::int64_t>(~total + 1)
                                            : static_cast<std::int64_t>(total));
}

}  // namespace whizbang::dotnet_time
