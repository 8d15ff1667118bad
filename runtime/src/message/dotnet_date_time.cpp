// .NET's DateTime, DateOnly, TimeOnly and TimeSpan: construction and the text System.Text.Json
// writes (docs/guide/15-dotnet-services.md). Parsing is in dotnet_date_time_parse.cpp.
#include "whizbang/message/dotnet_date_time.hpp"

#include <cstdint>
#include <string>

#include "whizbang/message/json_codec.hpp"

namespace whizbang {
namespace {

using internal::kTicksPerDay;
using internal::kTicksPerSecond;
constexpr std::int64_t kDaysBeforeUnixEpoch = DateTime::kUnixEpochTicks / kTicksPerDay;

void append_digits(std::string& out, std::uint64_t value, int width) {
  char digits[20];
  int length = 0;
  do {
    digits[length++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (int i = length; i < width; ++i) out.push_back('0');
  while (length > 0) out.push_back(digits[--length]);
}

// "yyyy-MM-dd" of a day counted from 0001-01-01.
void append_date(std::string& out, std::int64_t day_number) {
  const std::chrono::year_month_day date{
      std::chrono::sys_days(std::chrono::days(day_number - kDaysBeforeUnixEpoch))};
  append_digits(out, static_cast<std::uint64_t>(static_cast<int>(date.year())), 4);
  out.push_back('-');
  append_digits(out, static_cast<unsigned>(date.month()), 2);
  out.push_back('-');
  append_digits(out, static_cast<unsigned>(date.day()), 2);
}

// "hh:mm:ss" of the ticks within a day (or any count of ticks under 24 hours), and its fraction:
// 7 digits (TimeSpan's "c" format, .NET's "O"), trimmed of trailing zeros (System.Text.Json's
// DateTime), or none; nothing at all when the fraction is zero, except in the "O" form.
enum class Fraction { Seven, Trimmed, SevenAlways };

void append_clock(std::string& out, std::uint64_t ticks_of_day, Fraction fraction) {
  const std::uint64_t seconds = ticks_of_day / kTicksPerSecond;
  std::uint64_t ticks = ticks_of_day % kTicksPerSecond;
  append_digits(out, seconds / 3600, 2);
  out.push_back(':');
  append_digits(out, seconds / 60 % 60, 2);
  out.push_back(':');
  append_digits(out, seconds % 60, 2);
  if (ticks == 0 && fraction != Fraction::SevenAlways) return;
  int width = 7;
  if (fraction == Fraction::Trimmed) {
    while (ticks % 10 == 0) {
      ticks /= 10;
      --width;
    }
  }
  out.push_back('.');
  append_digits(out, ticks, width);
}

void append_offset(std::string& out, std::chrono::minutes offset) {
  out.push_back(offset.count() < 0 ? '-' : '+');
  const auto minutes =
      static_cast<std::uint64_t>(offset.count() < 0 ? -offset.count() : offset.count());
  append_digits(out, minutes / 60, 2);
  out.push_back(':');
  append_digits(out, minutes % 60, 2);
}

bool in_range(std::int64_t ticks) { return ticks >= 0 && ticks <= DateTime::kMaxTicks; }

}  // namespace

std::optional<DateTime> DateTime::unspecified(std::chrono::local_time<TimeSpan> wall_clock) {
  const TimeSpan since_epoch = wall_clock.time_since_epoch();
  if (since_epoch.count() < -kUnixEpochTicks || since_epoch.count() > kMaxTicks - kUnixEpochTicks) {
    return std::nullopt;
  }
  DateTime value;
  value.ticks_ = since_epoch.count() + kUnixEpochTicks;
  return value;
}

std::optional<DateTime> DateTime::utc(std::chrono::sys_time<TimeSpan> time) {
  std::optional<DateTime> value =
      unspecified(std::chrono::local_time<TimeSpan>(time.time_since_epoch()));
  if (value) value->kind_ = DateTimeKind::Utc;
  return value;
}

std::optional<DateTime> DateTime::local(std::chrono::local_time<TimeSpan> wall_clock,
                                        std::chrono::minutes utc_offset) {
  if (utc_offset > kMaxUtcOffset || utc_offset < -kMaxUtcOffset) return std::nullopt;
  std::optional<DateTime> value = unspecified(wall_clock);
  // The instant must be a DateTime too, as .NET's DateTimeOffset requires.
  if (!value || !in_range(value->ticks_ - TimeSpan(utc_offset).count())) return std::nullopt;
  value->kind_ = DateTimeKind::Local;
  value->offset_ = static_cast<std::int16_t>(utc_offset.count());
  return value;
}

std::optional<DateOnly> DateOnly::from(std::chrono::year_month_day date) {
  if (!date.ok() || date.year() < std::chrono::year(1) || date.year() > std::chrono::year(9999)) {
    return std::nullopt;
  }
  return from(std::chrono::sys_days(date));
}

std::optional<DateOnly> DateOnly::from(std::chrono::sys_days day) {
  const std::int64_t number = std::int64_t{day.time_since_epoch().count()} - kUnixEpochDay;
  if (number < 0 || number > DateTime::kMaxTicks / kTicksPerDay) return std::nullopt;
  DateOnly value;
  value.day_number_ = static_cast<std::int32_t>(number);
  return value;
}

std::optional<TimeOnly> TimeOnly::from(TimeSpan since_midnight) {
  if (since_midnight.count() < 0 || since_midnight >= kDay) return std::nullopt;
  TimeOnly value;
  value.since_midnight_ = since_midnight;
  return value;
}

std::string to_dotnet_text(const DateTime& value) {
  std::string out;
  out.reserve(33);
  append_date(out, value.ticks() / kTicksPerDay);
  out.push_back('T');
  append_clock(out, static_cast<std::uint64_t>(value.ticks() % kTicksPerDay), Fraction::Trimmed);
  if (value.kind() == DateTimeKind::Utc) out.push_back('Z');
  if (value.kind() == DateTimeKind::Local) append_offset(out, value.utc_offset());
  return out;
}

std::string to_dotnet_text(DateOnly value) {
  std::string out;
  append_date(out, value.day_number());
  return out;
}

std::string to_dotnet_text(TimeOnly value) {
  std::string out;
  append_clock(out, static_cast<std::uint64_t>(value.since_midnight().count()), Fraction::Seven);
  return out;
}

std::string to_dotnet_text(TimeSpan value) {
  std::string out;
  // The magnitude as unsigned: the most negative TimeSpan has no positive counterpart.
  auto ticks = static_cast<std::uint64_t>(value.count());
  if (value.count() < 0) {
    out.push_back('-');
    ticks = ~ticks + 1;
  }
  const std::uint64_t days = ticks / kTicksPerDay;
  if (days > 0) {
    append_digits(out, days, 1);
    out.push_back('.');
  }
  append_clock(out, ticks % kTicksPerDay, Fraction::Seven);
  return out;
}

namespace internal {

void append_dotnet_time(std::string& out, std::int64_t ticks_since_epoch) {
  // Rounded down to whole days first, so a time before 1970 still has a positive time of day.
  std::int64_t days = ticks_since_epoch / kTicksPerDay;
  std::int64_t of_day = ticks_since_epoch % kTicksPerDay;
  if (of_day < 0) {
    of_day += kTicksPerDay;
    --days;
  }
  append_date(out, days + kDaysBeforeUnixEpoch);
  out.push_back('T');
  append_clock(out, static_cast<std::uint64_t>(of_day), Fraction::SevenAlways);
  out.append("+00:00");
}

}  // namespace internal
}  // namespace whizbang
