// C++ counterparts of .NET's DateTime, DateOnly, TimeOnly and TimeSpan, for payload members of
// messages shared with Whizbang .NET services (docs/guide/15-dotnet-services.md). Each keeps
// .NET's 100 ns tick and range (0001-01-01 to 9999-12-31T23:59:59.9999999) and converts to and
// from the std::chrono type that says the same thing.
//
// Their JSON is the text System.Text.Json writes and reads by default, in both payload styles:
//   DateTime  "2026-12-05T14:30:15.1234567" (Unspecified), "...Z" (Utc), "...+01:00" (Local);
//             the fraction trimmed of trailing zeros, left out when zero
//   DateOnly  "2026-12-05"
//   TimeOnly  "14:30:15" or "14:30:15.1234567" (7 fraction digits when not zero)
//   TimeSpan  "[-][d.]hh:mm:ss[.fffffff]" (.NET's constant "c" format)
// Parsing accepts exactly what System.Text.Json's default converters accept (see each function)
// and answers InvalidArgument for anything else, never a wrapped or clamped value.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ratio>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace whizbang {

// .NET's TimeSpan: a signed count of 100 ns ticks.
using TimeSpan = std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>;

// .NET's DateTimeKind, with its values.
enum class DateTimeKind : std::uint8_t { Unspecified = 0, Utc = 1, Local = 2 };

// .NET's DateTime: a date and time of day in ticks since 0001-01-01T00:00:00, and its kind.
//
// A Local time keeps the UTC offset it was written with (its JSON carries it): .NET converts a
// received offset to the reading machine's time zone; here the time stays as written, and
// `to_sys()` gives the same instant either way. Equality compares ticks, kind and offset.
class DateTime {
 public:
  static constexpr std::int64_t kMaxTicks =
      3'155'378'975'999'999'999;  // 9999-12-31T23:59:59.9999999
  static constexpr std::int64_t kUnixEpochTicks = 621'355'968'000'000'000;  // 1970-01-01
  static constexpr std::chrono::minutes kMaxUtcOffset{14 * 60};             // as .NET's

  // 0001-01-01T00:00:00, Unspecified: .NET's default(DateTime).
  constexpr DateTime() = default;

  // nullopt outside 0001-01-01 .. 9999-12-31T23:59:59.9999999.
  static std::optional<DateTime> unspecified(std::chrono::local_time<TimeSpan> wall_clock);
  static std::optional<DateTime> utc(std::chrono::sys_time<TimeSpan> time);
  // Any system_clock time (nanoseconds, seconds, days ...), rounded down to a tick.
  template <class Duration>
  static std::optional<DateTime> utc(std::chrono::sys_time<Duration> time);
  // A wall-clock time at `utc_offset` (whole minutes, at most 14 hours either way); nullopt also
  // when the instant it names is outside the range.
  static std::optional<DateTime> local(std::chrono::local_time<TimeSpan> wall_clock,
                                       std::chrono::minutes utc_offset);

  // Ticks since 0001-01-01T00:00:00 of the date and time as written (wall clock).
  constexpr std::int64_t ticks() const { return ticks_; }
  constexpr DateTimeKind kind() const { return kind_; }
  // A Local time's offset; zero for Utc and Unspecified.
  constexpr std::chrono::minutes utc_offset() const { return std::chrono::minutes(offset_); }
  // The date and time as written, whatever the kind.
  std::chrono::local_time<TimeSpan> wall_clock() const {
    return std::chrono::local_time<TimeSpan>(TimeSpan(ticks_ - kUnixEpochTicks));
  }
  // The instant: a Local time less its offset; an Unspecified one is taken as UTC.
  std::chrono::sys_time<TimeSpan> to_sys() const {
    return std::chrono::sys_time<TimeSpan>(TimeSpan(ticks_ - kUnixEpochTicks) - utc_offset());
  }

  friend bool operator==(const DateTime&, const DateTime&) = default;

 private:
  std::int64_t ticks_ = 0;
  DateTimeKind kind_ = DateTimeKind::Unspecified;
  std::int16_t offset_ = 0;  // minutes, Local only
};

// .NET's DateOnly: a date from 0001-01-01 to 9999-12-31.
class DateOnly {
 public:
  // 0001-01-01: .NET's default(DateOnly).
  constexpr DateOnly() = default;
  // nullopt when the date is not valid (`!date.ok()`) or outside the years 1 to 9999.
  static std::optional<DateOnly> from(std::chrono::year_month_day date);
  static std::optional<DateOnly> from(std::chrono::sys_days day);

  std::chrono::year_month_day ymd() const { return std::chrono::year_month_day(to_sys_days()); }
  std::chrono::sys_days to_sys_days() const {
    return std::chrono::sys_days(std::chrono::days(day_number_ + kUnixEpochDay));
  }
  // Days since 0001-01-01: .NET's DateOnly.DayNumber.
  constexpr std::int32_t day_number() const { return day_number_; }

  friend auto operator<=>(const DateOnly&, const DateOnly&) = default;

 private:
  static constexpr std::int32_t kUnixEpochDay = -719'162;  // 0001-01-01 in sys_days
  std::int32_t day_number_ = 0;
};

// .NET's TimeOnly: a time of day, in ticks since midnight (00:00:00 to 23:59:59.9999999).
class TimeOnly {
 public:
  static constexpr TimeSpan kDay = std::chrono::days(1);

  constexpr TimeOnly() = default;  // midnight
  // nullopt unless 0 <= since_midnight < 24 hours.
  static std::optional<TimeOnly> from(TimeSpan since_midnight);

  constexpr TimeSpan since_midnight() const { return since_midnight_; }
  std::chrono::hh_mm_ss<TimeSpan> time_of_day() const {
    return std::chrono::hh_mm_ss<TimeSpan>(since_midnight_);
  }

  friend auto operator<=>(const TimeOnly&, const TimeOnly&) = default;

 private:
  TimeSpan since_midnight_{0};
};

// ---- text, as System.Text.Json writes it ----------------------------------------------------

std::string to_dotnet_text(const DateTime& value);
std::string to_dotnet_text(DateOnly value);
std::string to_dotnet_text(TimeOnly value);
std::string to_dotnet_text(TimeSpan value);

// ---- text, as System.Text.Json reads it -----------------------------------------------------

// ISO 8601-1 extended profile: "yyyy-MM-dd", then optionally "THH:mm", ":ss", ".f" (1 to 16
// digits; the first 7 count, the rest are dropped as .NET drops them), then optionally "Z"
// (Utc) or "+hh", "+hh:mm", "-hh", "-hh:mm" (Local, at most 14 hours). Without an offset,
// Unspecified. Upper-case 'T' and 'Z' only; no leap second (ss <= 59); 10 to 42 characters.
absl::StatusOr<DateTime> parse_dotnet_date_time(std::string_view text);
// Exactly "yyyy-MM-dd".
absl::StatusOr<DateOnly> parse_dotnet_date_only(std::string_view text);
// "hh:mm[:ss[.f]]" as TimeSpan's "c" format reads it (each of hh, mm, ss one or more digits,
// f 1 to 7 digits, hh <= 23), 8 to 16 characters, starting with a digit.
absl::StatusOr<TimeOnly> parse_dotnet_time_only(std::string_view text);
// TimeSpan's "c" format as .NET's parser reads it: optional leading spaces or tabs, an optional
// '-', then "d", "hh:mm", "d.hh:mm", "hh:mm:ss", "d.hh:mm:ss", "hh:mm:ss.f" or "d.hh:mm:ss.f"
// (each part one or more digits, hh <= 23, mm and ss <= 59, f 1 to 7 digits), 8 to 26
// characters, within the range of 64-bit ticks.
absl::StatusOr<TimeSpan> parse_dotnet_time_span(std::string_view text);

// ---- implementation -------------------------------------------------------------------------

template <class Duration>
std::optional<DateTime> DateTime::utc(std::chrono::sys_time<Duration> time) {
  using std::chrono::floor;
  if constexpr (std::ratio_less_v<typename Duration::period, TimeSpan::period>) {
    // Finer than a tick: rounding down divides, which cannot overflow.
    return utc(floor<TimeSpan>(time));
  } else {
    // Coarser: compare in the caller's unit first, so the multiplication cannot overflow.
    constexpr std::chrono::sys_time<TimeSpan> kFirst{TimeSpan(-kUnixEpochTicks)};
    constexpr std::chrono::sys_time<TimeSpan> kLast{TimeSpan(kMaxTicks - kUnixEpochTicks)};
    if (time < std::chrono::ceil<Duration>(kFirst) || time > floor<Duration>(kLast)) {
      return std::nullopt;
    }
    return utc(std::chrono::time_point_cast<TimeSpan>(time));
  }
}

namespace internal {

// Ticks (100 ns) per second and per day, for the codec's arithmetic.
inline constexpr std::int64_t kTicksPerSecond = TimeSpan::period::den;
inline constexpr std::int64_t kTicksPerDay = 86'400 * kTicksPerSecond;

// A duration of 100 ns ticks in a signed 64-bit count: TimeSpan (std::int64_t), or the same
// duration counted in the other 64-bit type (long long where std::int64_t is long).
template <class T>
struct IsTickDuration : std::false_type {};
template <class Rep>
struct IsTickDuration<std::chrono::duration<Rep, TimeSpan::period>>
    : std::bool_constant<std::is_integral_v<Rep> && std::is_signed_v<Rep> && sizeof(Rep) == 8> {};

// The types whose JSON is their .NET text (json_codec.hpp).
template <class T>
inline constexpr bool kIsDotNetTime = std::is_same_v<T, DateTime> || std::is_same_v<T, DateOnly> ||
                                      std::is_same_v<T, TimeOnly> || IsTickDuration<T>::value;

// `text` into `out`, or InvalidArgument naming the JSON `path` ("$.When: '...' is not ...").
template <class T>
absl::Status read_dotnet_text(std::string_view text, T& out, const std::string& path) {
  auto parsed = [text] {
    if constexpr (std::is_same_v<T, DateTime>) return parse_dotnet_date_time(text);
    if constexpr (std::is_same_v<T, DateOnly>) return parse_dotnet_date_only(text);
    if constexpr (std::is_same_v<T, TimeOnly>) return parse_dotnet_time_only(text);
    if constexpr (IsTickDuration<T>::value) return parse_dotnet_time_span(text);
  }();
  if (!parsed.ok()) {
    std::string message = path;
    message.append(": ").append(parsed.status().message().data(), parsed.status().message().size());
    return absl::InvalidArgumentError(message);
  }
  out = *parsed;
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace whizbang
