// The time encodings Whizbang .NET uses on the wire: ISO-8601 timestamps and TimeSpan strings.
#include "message/dotnet_time.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace whizbang {
namespace {

using std::chrono::microseconds;

std::string timestamp(std::int64_t micros) {
  std::string out;
  dotnet_time::append_timestamp(out, TimePoint(microseconds(micros)));
  return out;
}

std::string timespan(std::int64_t micros) {
  std::string out;
  dotnet_time::append_timespan(out, microseconds(micros));
  return out;
}

TEST(DotNetTimeTests, Timestamp_IsoWithOffset_FractionTrimmed) {
  EXPECT_EQ(timestamp(0), "1970-01-01T00:00:00+00:00");
  EXPECT_EQ(timestamp(1'773'077'401'693'249), "2026-03-09T17:30:01.693249+00:00");
  EXPECT_EQ(timestamp(1'773'077'401'500'000), "2026-03-09T17:30:01.5+00:00");
  EXPECT_EQ(timestamp(951'782'400'000'000), "2000-02-29T00:00:00+00:00");  // leap day
  EXPECT_EQ(timestamp(-1), "1969-12-31T23:59:59.999999+00:00");
}

TEST(DotNetTimeTests, Timestamp_ReadsEveryFormDotNetAccepts) {
  auto micros = [](std::string_view text) -> std::optional<std::int64_t> {
    auto time = dotnet_time::parse_timestamp(text);
    if (!time) return std::nullopt;
    return std::chrono::duration_cast<microseconds>(time->time_since_epoch()).count();
  };
  EXPECT_EQ(micros("2026-03-09T17:30:01.693249+00:00"), 1'773'077'401'693'249);
  EXPECT_EQ(micros("2026-03-09T17:30:01.6932490+00:00"), 1'773'077'401'693'249);
  EXPECT_EQ(micros("2026-03-09T17:30:01.693249Z"), 1'773'077'401'693'249);
  EXPECT_EQ(micros("2026-03-09T17:30:01"), 1'773'077'401'000'000);  // no offset: UTC
  EXPECT_EQ(micros("2026-03-09T19:30:01.5+02:00"), 1'773'077'401'500'000);
  EXPECT_EQ(micros("2026-03-09T12:00:01-05:30"), 1'773'077'401'000'000);
  for (std::int64_t value : {0LL, 1LL, 1'773'077'401'693'249LL, -1LL, 4'102'444'800'000'000LL,
                             9'223'372'036'854'775LL, -9'223'372'036'854'775LL}) {
    EXPECT_EQ(micros(timestamp(value)), value) << value;  // round trip, to the range's ends
  }
  // Beyond what TimePoint holds (about +/-292 years around 1970): refused, never wrapped.
  EXPECT_FALSE(micros("2263-01-01T00:00:00Z").has_value());
  EXPECT_FALSE(micros("1677-01-01T00:00:00Z").has_value());
}

TEST(DotNetTimeTests, Timestamp_Garbage_IsRefused) {
  for (std::string_view bad : {"", "yesterday", "2026-03-09", "2026-13-09T00:00:00Z",
                               "2026-03-09T25:00:00Z", "2026-03-09T17:30:01.12345678Z",
                               "2026-03-09T17:30:01+0200", "2026-03-09T17:30:01Z trailing"}) {
    EXPECT_FALSE(dotnet_time::parse_timestamp(bad).has_value()) << bad;
  }
}

TEST(DotNetTimeTests, TimeSpan_TheCFormat) {
  EXPECT_EQ(timespan(0), "00:00:00");
  EXPECT_EQ(timespan(1'500'000), "00:00:01.5000000");
  EXPECT_EQ(timespan(15'000), "00:00:00.0150000");
  EXPECT_EQ(timespan(((26LL * 3600 + 3 * 60 + 4) * 1'000'000) + 1), "1.02:03:04.0000010");
  EXPECT_EQ(timespan(-2'000'000), "-00:00:02");
}

TEST(DotNetTimeTests, TimeSpan_ReadsBackAndRefusesGarbage) {
  for (std::int64_t value : {0LL, 1LL, 15'000LL, 1'500'000LL, -2'000'000LL,
                             ((26LL * 3600 + 3 * 60 + 4) * 1'000'000) + 1}) {
    EXPECT_EQ(dotnet_time::parse_timespan(timespan(value)), microseconds(value)) << value;
  }
  // The extremes of an int64 of microseconds (the most negative has no positive counterpart).
  for (std::int64_t value :
       {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    EXPECT_EQ(dotnet_time::parse_timespan(timespan(value)), microseconds(value)) << value;
  }
  EXPECT_FALSE(dotnet_time::parse_timespan("999999999.00:00:00").has_value()) << "overflow";
  EXPECT_EQ(dotnet_time::parse_timespan("00:00:00.015"), microseconds(15'000));
  for (std::string_view bad : {"", "1.5", "00:60:00", "00:00:00.12345678", "abc", "00:00"}) {
    EXPECT_FALSE(dotnet_time::parse_timespan(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace whizbang
