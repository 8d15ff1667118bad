// Reading .NET's DateTime, DateOnly, TimeOnly, TimeSpan and DateTimeOffset texts as
// System.Text.Json's default converters read them (whizbang/message/dotnet_date_time.hpp): the
// ISO 8601-1 extended profile of its DateTime reader, and TimeSpan's "c" format.
#include <cstdint>
#include <limits>
#include <string>

#include "whizbang/message/dotnet_date_time.hpp"
#include "whizbang/message/json_codec.hpp"

namespace whizbang {
namespace {

using internal::kTicksPerDay;
using internal::kTicksPerSecond;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// 'text' (quoted; shortened when long, as it comes from a payload).
std::string quoted(std::string_view text) {
  std::string out = "'";
  out.append(text.substr(0, 64));
  if (text.size() > 64) out.append("...");
  out.push_back('\'');
  return out;
}

absl::Status malformed(std::string_view text, std::string_view type, std::string_view format) {
  std::string message = quoted(text);
  message.append(" is not a .NET ").append(type).append(" (").append(format).append(")");
  return absl::InvalidArgumentError(message);
}

absl::Status out_of_range(std::string_view text, std::string_view type) {
  std::string message = quoted(text);
  message.append(" is outside the range of a .NET ").append(type);
  return absl::InvalidArgumentError(message);
}

// ---- ISO 8601 (DateTime, DateOnly, DateTimeOffset) -----------------------------------------

constexpr std::string_view kIsoFormat =
    "ISO 8601: yyyy-MM-dd, then optionally THH:mm[:ss[.fffffff]] and Z or +hh:mm";

struct IsoFields {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  std::int64_t fraction = 0;  // ticks
  bool date_only = false;
  char offset = '\0';  // '\0' (none), 'Z', '+' or '-'
  int offset_hours = 0, offset_minutes = 0;
};

bool two_digits(std::string_view text, std::size_t at, int& out) {
  if (at + 2 > text.size() || !is_digit(text[at]) || !is_digit(text[at + 1])) return false;
  out = (text[at] - '0') * 10 + (text[at + 1] - '0');
  return true;
}

// "Z", "+hh", "+hh:mm", "-hh" or "-hh:mm" from `at` to the end.
bool split_offset(std::string_view text, std::size_t at, IsoFields& fields) {
  fields.offset = text[at++];
  if (fields.offset == 'Z') return at == text.size();
  if (!two_digits(text, at, fields.offset_hours)) return false;
  if (at + 2 == text.size()) return true;
  return at + 5 == text.size() && text[at + 2] == ':' &&
         two_digits(text, at + 3, fields.offset_minutes);
}

// The syntax of System.Text.Json's reader; the values are checked by the caller.
bool split_iso(std::string_view text, IsoFields& fields) {
  if (text.size() < 10 || text.size() > 42) return false;
  for (std::size_t i = 0; i < 4; ++i) {
    if (!is_digit(text[i])) return false;
    fields.year = fields.year * 10 + (text[i] - '0');
  }
  if (text[4] != '-' || !two_digits(text, 5, fields.month) || text[7] != '-' ||
      !two_digits(text, 8, fields.day)) {
    return false;
  }
  fields.date_only = text.size() == 10;
  if (fields.date_only) return true;
  if (text.size() < 16 || text[10] != 'T' || !two_digits(text, 11, fields.hour) ||
      text[13] != ':' || !two_digits(text, 14, fields.minute)) {
    return false;
  }
  if (text.size() == 16) return true;
  if (text[16] != ':') return split_offset(text, 16, fields);
  if (!two_digits(text, 17, fields.second)) return false;
  if (text.size() == 19) return true;
  if (text[19] != '.') return split_offset(text, 19, fields);
  // 1 to 16 digits, of which the first 7 count (.NET keeps ticks and drops the rest).
  std::size_t at = 20;
  int digits = 0;
  while (at < text.size() && is_digit(text[at]) && digits < 16) {
    if (digits < 7) fields.fraction = fields.fraction * 10 + (text[at] - '0');
    ++digits;
    ++at;
  }
  // At least one digit, as documented (.NET's code also lets an offset follow the '.').
  if (digits == 0) return false;
  for (int i = digits; i < 7; ++i) fields.fraction *= 10;
  return at == text.size() || split_offset(text, at, fields);
}

// Ticks since 0001-01-01 of the date and time as written; nullopt when a field is out of its
// range (month 13, February 30, hour 24, second 60, year 0).
std::optional<std::int64_t> wall_clock_ticks(const IsoFields& fields) {
  const std::chrono::year_month_day date{std::chrono::year(fields.year),
                                         std::chrono::month(static_cast<unsigned>(fields.month)),
                                         std::chrono::day(static_cast<unsigned>(fields.day))};
  const std::optional<DateOnly> day = DateOnly::from(date);
  if (!day || fields.hour > 23 || fields.minute > 59 || fields.second > 59) return std::nullopt;
  return day->day_number() * kTicksPerDay +
         (fields.hour * 3600 + fields.minute * 60 + fields.second) * kTicksPerSecond +
         fields.fraction;
}

// The offset, when .NET's DateTimeOffset allows it (at most 14 hours).
std::optional<std::chrono::minutes> offset_of(const IsoFields& fields) {
  if (fields.offset_hours > 14 || fields.offset_minutes > 59 ||
      (fields.offset_hours == 14 && fields.offset_minutes != 0)) {
    return std::nullopt;
  }
  const std::chrono::minutes offset(fields.offset_hours * 60 + fields.offset_minutes);
  return fields.offset == '-' ? -offset : offset;
}

// ---- TimeSpan's "c" format ------------------------------------------------------------------

// One or more digits, leading zeros skipped, as an unsigned 32-bit number (.NET's Utf8Parser).
bool uint32_digits(std::string_view text, std::size_t& at, std::uint64_t& out) {
  const std::size_t start = at;
  out = 0;
  while (at < text.size() && is_digit(text[at])) {
    out = out * 10 + static_cast<std::uint64_t>(text[at++] - '0');
    if (out > std::numeric_limits<std::uint32_t>::max()) return false;
  }
  return at > start;
}

// 1 to 7 digits as ticks.
bool fraction_digits(std::string_view text, std::size_t& at, std::uint64_t& out) {
  const std::size_t start = at;
  out = 0;
  while (at < text.size() && is_digit(text[at])) {
    if (at - start == 7) return false;  // .NET's TimeSpan rejects an 8th digit, even a zero
    out = out * 10 + static_cast<std::uint64_t>(text[at++] - '0');
  }
  for (std::size_t i = at - start; i < 7; ++i) out *= 10;
  return at > start;
}

// The parts of a "c" TimeSpan: up to five numbers and the separators between them (':' or
// '.'), as .NET's splitter reads them: a '.' after the first number separates days; after the
// third or fourth, a fraction. Leaves `at` after the last part.
struct SpanParts {
  bool negative = false;
  std::uint64_t values[5] = {};
  char separators[5] = {};  // separators[i] precedes values[i]
  int count = 0;
};

bool split_span(std::string_view text, std::size_t& at, SpanParts& parts) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  if (at < text.size() && text[at] == '-') {
    parts.negative = true;
    ++at;
  }
  if (!uint32_digits(text, at, parts.values[0])) return false;
  parts.count = 1;
  while (parts.count < 5 && at < text.size() && (text[at] == ':' || text[at] == '.')) {
    const char separator = text[at++];
    parts.separators[parts.count] = separator;
    const bool fraction = separator == '.' && parts.count > 1;
    std::uint64_t& value = parts.values[parts.count++];
    if (!(fraction ? fraction_digits(text, at, value) : uint32_digits(text, at, value))) {
      return false;
    }
  }
  return at == text.size();
}

// ticks of days, hours, minutes, seconds and a fraction; nullopt out of range.
std::optional<TimeSpan> span_of(bool negative, std::uint64_t days, std::uint64_t hours,
                                std::uint64_t minutes, std::uint64_t seconds,
                                std::uint64_t fraction) {
  if (hours > 23 || minutes > 59 || seconds > 59) return std::nullopt;
  // days < 2^32: the seconds fit an unsigned 64-bit number, the ticks may not.
  const std::uint64_t whole = days * 86'400 + hours * 3600 + minutes * 60 + seconds;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const std::uint64_t limit = negative ? kMax + 1 : kMax;
  if (whole > (limit - fraction) / kTicksPerSecond) return std::nullopt;
  const std::uint64_t ticks = whole * kTicksPerSecond + fraction;
  return TimeSpan(negative ? static_cast<std::int64_t>(~ticks + 1)
                           : static_cast<std::int64_t>(ticks));
}

constexpr std::string_view kSpanFormat = "[-][d.]hh:mm:ss[.fffffff]";

// nullopt with `status` set when malformed or out of range.
std::optional<TimeSpan> parse_span(std::string_view text, std::string_view type,
                                   std::string_view format, absl::Status& status) {
  SpanParts parts;
  std::size_t at = 0;
  if (!split_span(text, at, parts)) {
    status = malformed(text, type, format);
    return std::nullopt;
  }
  std::string shape;  // the separators, ':' and '.', as .NET's splitter tells the forms apart
  for (int i = 1; i < parts.count; ++i) shape.push_back(parts.separators[i]);
  const std::uint64_t* v = parts.values;
  std::optional<TimeSpan> span;
  bool known = true;
  if (shape.empty()) {
    span = span_of(parts.negative, v[0], 0, 0, 0, 0);  // d
  } else if (shape == ":") {
    span = span_of(parts.negative, 0, v[0], v[1], 0, 0);  // hh:mm
  } else if (shape == ".:") {
    span = span_of(parts.negative, v[0], v[1], v[2], 0, 0);  // d.hh:mm
  } else if (shape == "::") {
    span = span_of(parts.negative, 0, v[0], v[1], v[2], 0);  // hh:mm:ss
  } else if (shape == ".::") {
    span = span_of(parts.negative, v[0], v[1], v[2], v[3], 0);  // d.hh:mm:ss
  } else if (shape == "::.") {
    span = span_of(parts.negative, 0, v[0], v[1], v[2], v[3]);  // hh:mm:ss.fffffff
  } else if (shape == ".::.") {
    span = span_of(parts.negative, v[0], v[1], v[2], v[3], v[4]);  // d.hh:mm:ss.fffffff
  } else {
    known = false;
  }
  if (!known) status = malformed(text, type, format);
  if (known && !span) status = out_of_range(text, type);
  return span;
}

}  // namespace

absl::StatusOr<DateTime> parse_dotnet_date_time(std::string_view text) {
  IsoFields fields;
  if (!split_iso(text, fields)) return malformed(text, "DateTime", kIsoFormat);
  const std::optional<std::int64_t> ticks = wall_clock_ticks(fields);
  if (!ticks) return out_of_range(text, "DateTime");
  const std::chrono::local_time<TimeSpan> wall_clock(TimeSpan(*ticks - DateTime::kUnixEpochTicks));
  std::optional<DateTime> value;
  if (fields.offset == '\0') {
    value = DateTime::unspecified(wall_clock);
  } else if (fields.offset == 'Z') {
    value = DateTime::utc(std::chrono::sys_time<TimeSpan>(wall_clock.time_since_epoch()));
  } else if (const std::optional<std::chrono::minutes> offset = offset_of(fields)) {
    value = DateTime::local(wall_clock, *offset);
  }
  if (!value) return out_of_range(text, "DateTime");
  return *value;
}

absl::StatusOr<DateOnly> parse_dotnet_date_only(std::string_view text) {
  IsoFields fields;
  if (!split_iso(text, fields) || !fields.date_only) {
    return malformed(text, "DateOnly", "yyyy-MM-dd");
  }
  const std::optional<std::int64_t> ticks = wall_clock_ticks(fields);
  if (!ticks) return out_of_range(text, "DateOnly");
  return *DateOnly::from(std::chrono::sys_days(
      std::chrono::days(*ticks / kTicksPerDay - DateTime::kUnixEpochTicks / kTicksPerDay)));
}

absl::StatusOr<TimeOnly> parse_dotnet_time_only(std::string_view text) {
  constexpr std::string_view kFormat = "HH:mm:ss[.fffffff]";
  // .NET reads a TimeSpan after refusing what only a TimeSpan may have: leading blanks, a sign,
  // days (a '.' before the first ':').
  const std::size_t separator = text.find_first_of(".:");
  if (text.size() < 8 || text.size() > 16 || !is_digit(text[0]) ||
      separator == std::string_view::npos || text[separator] == '.') {
    return malformed(text, "TimeOnly", kFormat);
  }
  absl::Status status;
  const std::optional<TimeSpan> span = parse_span(text, "TimeOnly", kFormat, status);
  if (!span) return status;
  return *TimeOnly::from(*span);  // hh <= 23 and no days: under 24 hours
}

absl::StatusOr<TimeSpan> parse_dotnet_time_span(std::string_view text) {
  if (text.size() < 8 || text.size() > 26) return malformed(text, "TimeSpan", kSpanFormat);
  absl::Status status;
  const std::optional<TimeSpan> span = parse_span(text, "TimeSpan", kSpanFormat, status);
  if (!span) return status;
  return *span;
}

namespace internal {

std::optional<std::int64_t> parse_dotnet_time(std::string_view text) {
  IsoFields fields;
  if (!split_iso(text, fields)) return std::nullopt;
  const std::optional<std::int64_t> ticks = wall_clock_ticks(fields);
  if (!ticks) return std::nullopt;
  std::chrono::minutes offset{0};  // none: UTC (.NET would take the reading machine's zone)
  if (fields.offset == '+' || fields.offset == '-') {
    const std::optional<std::chrono::minutes> parsed = offset_of(fields);
    if (!parsed) return std::nullopt;
    offset = *parsed;
  }
  const std::int64_t utc = *ticks - TimeSpan(offset).count();
  if (utc < 0 || utc > DateTime::kMaxTicks) return std::nullopt;
  return utc - DateTime::kUnixEpochTicks;
}

}  // namespace internal
}  // namespace whizbang
