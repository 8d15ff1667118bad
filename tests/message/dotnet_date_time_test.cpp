// .NET's DateTime, DateOnly, TimeOnly and TimeSpan (whizbang/message/dotnet_date_time.hpp): the
// texts System.Text.Json writes and reads, at 100 ns ticks. Expected ticks are .NET's own
// numbers (DateTime.UnixEpoch.Ticks, DateTime.MaxValue.Ticks, TimeSpan.MaxValue) or computed
// independently of this code; the texts follow .NET's documented formats.
#include "whizbang/message/dotnet_date_time.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "whizbang/message/json_codec.hpp"

namespace whizbang {
namespace {

using std::chrono::minutes;

constexpr std::int64_t kTicksPerSecond = 10'000'000;
// 2026-12-05T14:30:15.1234567 in ticks since 0001-01-01.
constexpr std::int64_t kSample = 639'320'778'151'234'567;

DateTime parsed_date_time(std::string_view text) {
  absl::StatusOr<DateTime> value = parse_dotnet_date_time(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status();
  return value.value_or(DateTime());
}

DateTime unspecified(std::int64_t ticks) {
  return *DateTime::unspecified(
      std::chrono::local_time<TimeSpan>(TimeSpan(ticks - DateTime::kUnixEpochTicks)));
}

DateTime utc(std::int64_t ticks) {
  return *DateTime::utc(
      std::chrono::sys_time<TimeSpan>(TimeSpan(ticks - DateTime::kUnixEpochTicks)));
}

DateTime local(std::int64_t ticks, minutes offset) {
  return *DateTime::local(
      std::chrono::local_time<TimeSpan>(TimeSpan(ticks - DateTime::kUnixEpochTicks)), offset);
}

TEST(DotNetDateTimeTests, DateTime_HandWrittenTexts_DecodeToTicksAndKind) {
  DateTime value = parsed_date_time("2026-12-05T14:30:15.1234567");
  EXPECT_EQ(value.ticks(), kSample);
  EXPECT_EQ(value.kind(), DateTimeKind::Unspecified);

  value = parsed_date_time("2026-12-05T14:30:15.1234567Z");
  EXPECT_EQ(value.ticks(), kSample);
  EXPECT_EQ(value.kind(), DateTimeKind::Utc);

  // A Local time keeps the wall clock and the offset it was written with.
  value = parsed_date_time("2026-12-05T14:30:15.1234567+01:00");
  EXPECT_EQ(value.ticks(), kSample);
  EXPECT_EQ(value.kind(), DateTimeKind::Local);
  EXPECT_EQ(value.utc_offset(), minutes(60));
  EXPECT_EQ(value.to_sys(), utc(kSample - 3600 * kTicksPerSecond).to_sys());

  // The reduced forms System.Text.Json reads: a date alone, no seconds, an offset in hours.
  constexpr std::int64_t k2000 = 630'822'816'000'000'000;  // 2000-01-01
  EXPECT_EQ(parsed_date_time("2000-01-01"), unspecified(k2000));
  EXPECT_EQ(parsed_date_time("2000-01-01T00:00"), unspecified(k2000));
  EXPECT_EQ(parsed_date_time("2000-01-01T00:00Z"), utc(k2000));
  EXPECT_EQ(parsed_date_time("2000-01-01T00:00:00-05"), local(k2000, minutes(-300)));
  EXPECT_EQ(parsed_date_time("2000-01-01T00:00-05:30"), local(k2000, minutes(-330)));
  // Fraction digits: fewer than 7 scale up, more than 7 (up to 16) are dropped.
  EXPECT_EQ(parsed_date_time("2026-12-05T14:30:15.123Z"), utc(kSample - 4567));
  EXPECT_EQ(parsed_date_time("2026-12-05T14:30:15.1234567999999999Z"), utc(kSample));
  EXPECT_EQ(parsed_date_time("1970-01-01T00:00:00Z").ticks(), DateTime::kUnixEpochTicks);
}

TEST(DotNetDateTimeTests, DateTime_EncodesAsSystemTextJsonWrites) {
  EXPECT_EQ(to_dotnet_text(unspecified(kSample)), "2026-12-05T14:30:15.1234567");
  EXPECT_EQ(to_dotnet_text(utc(kSample)), "2026-12-05T14:30:15.1234567Z");
  EXPECT_EQ(to_dotnet_text(local(kSample, minutes(330))), "2026-12-05T14:30:15.1234567+05:30");
  EXPECT_EQ(to_dotnet_text(local(kSample, minutes(-480))), "2026-12-05T14:30:15.1234567-08:00");
  EXPECT_EQ(to_dotnet_text(local(kSample, minutes(0))), "2026-12-05T14:30:15.1234567+00:00");
  // Trailing zeros trimmed, no fraction when zero (the documented examples).
  EXPECT_EQ(to_dotnet_text(utc(636'917'142'171'010'000)), "2019-04-24T14:50:17.101Z");
  EXPECT_EQ(to_dotnet_text(unspecified(636'997'571'970'000'000)), "2019-07-26T16:59:57");
  EXPECT_EQ(to_dotnet_text(DateTime()), "0001-01-01T00:00:00");
  EXPECT_EQ(to_dotnet_text(utc(DateTime::kMaxTicks)), "9999-12-31T23:59:59.9999999Z");
}

TEST(DotNetDateTimeTests, DateTime_RoundTripsEveryKindAt100Nanoseconds) {
  const std::vector<std::int64_t> ticks = {0,
                                           1,
                                           9,
                                           10,
                                           1'000'000,
                                           kSample,
                                           kSample + 1,
                                           kSample - 1,
                                           DateTime::kUnixEpochTicks - 1,
                                           DateTime::kUnixEpochTicks,
                                           DateTime::kMaxTicks - 1,
                                           DateTime::kMaxTicks};
  for (const std::int64_t t : ticks) {
    for (const DateTime& value : {unspecified(t), utc(t)}) {
      EXPECT_EQ(parsed_date_time(to_dotnet_text(value)), value) << to_dotnet_text(value);
    }
  }
  const DateTime offset = local(kSample + 1, minutes(-14 * 60));
  EXPECT_EQ(parsed_date_time(to_dotnet_text(offset)), offset);
}

TEST(DotNetDateTimeTests, DateTime_Boundaries) {
  EXPECT_EQ(parsed_date_time("0001-01-01T00:00:00"), DateTime());
  EXPECT_EQ(parsed_date_time("0001-01-01T00:00:00Z"), utc(0));
  EXPECT_EQ(parsed_date_time("9999-12-31T23:59:59.9999999"), unspecified(DateTime::kMaxTicks));
  EXPECT_EQ(parsed_date_time("9999-12-31T23:59:59.9999999+14:00"),
            local(DateTime::kMaxTicks, minutes(14 * 60)));
  EXPECT_EQ(parsed_date_time("2024-02-29"), unspecified(638'447'616'000'000'000));  // leap day
  // The instant of an offset time must be in range too, as in .NET.
  for (const char* text : {"0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59.9999999-00:01",
                           "0000-12-31T00:00:00", "2023-02-29", "2026-04-31"}) {
    absl::StatusOr<DateTime> value = parse_dotnet_date_time(text);
    EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(value.status().message().find("outside the range"), absl::string_view::npos)
        << value.status();
  }
  // From std::chrono: rounded down to a tick; outside 0001..9999 is nullopt, not a wrapped value.
  const std::chrono::system_clock::time_point ns(
      std::chrono::nanoseconds(1'773'077'401'693'249'199));
  EXPECT_EQ(to_dotnet_text(*DateTime::utc(ns)), "2026-03-09T17:30:01.6932491Z");
  using std::chrono::sys_days;
  using std::chrono::year;
  EXPECT_FALSE(DateTime::utc(sys_days(year(10000) / 1 / 1)).has_value());
  EXPECT_FALSE(DateTime::utc(sys_days(year(0) / 12 / 31)).has_value());
  EXPECT_TRUE(DateTime::utc(sys_days(year(9999) / 12 / 31)).has_value());
  EXPECT_FALSE(
      DateTime::local(std::chrono::local_time<TimeSpan>(), minutes(14 * 60 + 1)).has_value());
}

TEST(DotNetDateTimeTests, DateTime_MalformedTextsAreRejectedWithAStatus) {
  for (const char* text : {"",
                           "2026",
                           "2026-12-05T",
                           "2026-12-05T14",
                           "2026-12-05T14:3",
                           "2026-12-05t14:30:15",
                           "2026-12-05 14:30:15",
                           "2026-12-05T14:30:15z",
                           "2026-12-05T14:30:15.",
                           "2026-12-05T14:30:15.Z",
                           "2026-12-05T14:30:15.12345678901234567",
                           "2026-12-05T14:30:15+1:00",
                           "2026-12-05T14:30:15+01:0",
                           "2026-12-05T14:30:15+0100",
                           "2026-12-05T14:30:15ZZ",
                           "2026-12-05T14:30:15Z ",
                           " 2026-12-05",
                           "2026-12-5",
                           "+2026-12-05",
                           "2026/12/05",
                           "2026-12-05T14:30:15,5",
                           "20261205T143015"}) {
    absl::StatusOr<DateTime> value = parse_dotnet_date_time(text);
    EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(value.status().message().find("is not a .NET DateTime"), absl::string_view::npos)
        << value.status();
  }
  for (const char* text :
       {"2026-13-05", "2026-12-32", "2026-12-05T24:00", "2026-12-05T14:60", "2026-12-05T14:30:60",
        "2026-12-05T14:30:15+15:00", "2026-12-05T14:30:15+14:30", "2026-12-05T14:30:15-01:60"}) {
    EXPECT_EQ(parse_dotnet_date_time(text).status().code(), absl::StatusCode::kInvalidArgument)
        << text;
  }
}

TEST(DotNetDateTimeTests, DateOnly_Text) {
  absl::StatusOr<DateOnly> date = parse_dotnet_date_only("2026-12-05");
  ASSERT_TRUE(date.ok()) << date.status();
  EXPECT_EQ(date->day_number(), 739'954);
  EXPECT_EQ(date->ymd(), std::chrono::year(2026) / 12 / 5);
  EXPECT_EQ(to_dotnet_text(*date), "2026-12-05");
  EXPECT_EQ(parse_dotnet_date_only("0001-01-01").value_or(DateOnly()).day_number(), 0);
  EXPECT_EQ(to_dotnet_text(DateOnly()), "0001-01-01");
  const absl::StatusOr<DateOnly> last = parse_dotnet_date_only("9999-12-31");
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->day_number(), 3'652'058);
  EXPECT_EQ(to_dotnet_text(*last), "9999-12-31");
  EXPECT_EQ(DateOnly::from(std::chrono::year(2024) / 2 / 29)->to_sys_days(),
            std::chrono::sys_days(std::chrono::year(2024) / 2 / 29));
  EXPECT_FALSE(DateOnly::from(std::chrono::year(2023) / 2 / 29).has_value());
  EXPECT_FALSE(DateOnly::from(std::chrono::year(10000) / 1 / 1).has_value());
  for (const char* text : {"2026-12-05T00:00", "2026-12-05Z", "2026-02-30", "0000-01-01",
                           "26-12-05", "2026-12-5", " 2026-12-05", "2026-12-05 ", ""}) {
    EXPECT_EQ(parse_dotnet_date_only(text).status().code(), absl::StatusCode::kInvalidArgument)
        << text;
  }
}

TEST(DotNetDateTimeTests, TimeOnly_Text) {
  const auto time = [](std::string_view text) {
    absl::StatusOr<TimeOnly> value = parse_dotnet_time_only(text);
    EXPECT_TRUE(value.ok()) << text << ": " << value.status();
    return value.value_or(TimeOnly()).since_midnight().count();
  };
  EXPECT_EQ(time("14:30:15"), 522'150'000'000);
  EXPECT_EQ(time("14:30:15.1234567"), 522'151'234'567);
  EXPECT_EQ(time("14:30:15.1"), 522'151'000'000);
  EXPECT_EQ(time("00:00:00"), 0);
  EXPECT_EQ(time("23:59:59.9999999"), 863'999'999'999);  // TimeOnly.MaxValue
  EXPECT_EQ(time("0014:30:15"), 522'150'000'000);        // TimeSpan's parser: any digit count
  EXPECT_EQ(time("00014:30"), 522'000'000'000);          // hh:mm, 8 characters
  // .NET's "c" format: 7 fraction digits whenever there is a fraction.
  EXPECT_EQ(to_dotnet_text(*TimeOnly::from(TimeSpan(522'151'000'000))), "14:30:15.1000000");
  EXPECT_EQ(to_dotnet_text(*TimeOnly::from(TimeSpan(522'150'000'000))), "14:30:15");
  EXPECT_EQ(to_dotnet_text(*TimeOnly::from(TimeSpan(863'999'999'999))), "23:59:59.9999999");
  EXPECT_EQ(to_dotnet_text(TimeOnly()), "00:00:00");
  EXPECT_FALSE(TimeOnly::from(std::chrono::hours(24)).has_value());
  EXPECT_FALSE(TimeOnly::from(TimeSpan(-1)).has_value());
  EXPECT_EQ(TimeOnly::from(TimeSpan(522'151'234'567))->time_of_day().minutes().count(), 30);
  for (const char* text : {"24:00:00", "14:60:00", "14:30:60", "14:30", "-14:30:15", " 14:30:15",
                           "1.14:30:15", "14:30:15.12345678", "14:30:15 ", "14:30:15.", "1430150",
                           "14:30:15:01", "14.30:15", "14:30:15.1234567 ", ""}) {
    EXPECT_EQ(parse_dotnet_time_only(text).status().code(), absl::StatusCode::kInvalidArgument)
        << text;
  }
}

TEST(DotNetDateTimeTests, TimeSpan_Text) {
  const auto span = [](std::string_view text) {
    absl::StatusOr<TimeSpan> value = parse_dotnet_time_span(text);
    EXPECT_TRUE(value.ok()) << text << ": " << value.status();
    return value.value_or(TimeSpan(0)).count();
  };
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(span("00:00:00"), 0);
  EXPECT_EQ(span("1.02:03:04.5000000"), 937'845'000'000);
  EXPECT_EQ(span("-1.02:03:04.5000000"), -937'845'000'000);
  EXPECT_EQ(span("1.02:03:04.5"), 937'845'000'000);
  EXPECT_EQ(span("00:00:00.0000001"), 1);
  EXPECT_EQ(span("-00:00:00.0000001"), -1);
  EXPECT_EQ(span("10675199.02:48:05.4775807"), kMax);   // TimeSpan.MaxValue
  EXPECT_EQ(span("-10675199.02:48:05.4775808"), kMin);  // TimeSpan.MinValue
  // What .NET's "c" parser also reads: hh:mm, d.hh:mm, days alone, leading blanks.
  EXPECT_EQ(span("01:02:03"), 37'230'000'000);
  EXPECT_EQ(span("00001:02"), 37'200'000'000);
  EXPECT_EQ(span("3.01:02:03"), 3 * 864'000'000'000 + 37'230'000'000);
  EXPECT_EQ(span("10.01:02"), 10 * 864'000'000'000 + 37'200'000'000);
  EXPECT_EQ(span("00000010"), 10 * 864'000'000'000);
  EXPECT_EQ(span(" \t1:02:03"), 37'230'000'000);

  EXPECT_EQ(to_dotnet_text(TimeSpan(0)), "00:00:00");
  EXPECT_EQ(to_dotnet_text(TimeSpan(937'845'000'000)), "1.02:03:04.5000000");
  EXPECT_EQ(to_dotnet_text(TimeSpan(-937'845'000'000)), "-1.02:03:04.5000000");
  EXPECT_EQ(to_dotnet_text(TimeSpan(-1)), "-00:00:00.0000001");
  EXPECT_EQ(to_dotnet_text(TimeSpan(kMax)), "10675199.02:48:05.4775807");
  EXPECT_EQ(to_dotnet_text(TimeSpan(kMin)), "-10675199.02:48:05.4775808");
  EXPECT_EQ(to_dotnet_text(std::chrono::hours(49)), "2.01:00:00");

  for (const std::int64_t ticks :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, std::int64_t{864'000'000'000},
        kSample % kMax, -kSample, kMax, kMin, kMin + 1, kMax - 1}) {
    EXPECT_EQ(span(to_dotnet_text(TimeSpan(ticks))), ticks) << ticks;
  }

  for (const char* text : {"10675199.02:48:05.4775808",
                           "-10675199.02:48:05.4775809",
                           "99999999.00:00:00",
                           "4294967296:00:00",
                           "1.24:00:00",
                           "00:60:00",
                           "00:00:60",
                           "00:00:00.12345678",
                           "+00:00:00",
                           "00:00:00 ",
                           "00:00:00.",
                           "1.2.3:04:05",
                           "00:00",
                           "1:2:3",
                           "00:00:00:00:00",
                           "12:30.5000",
                           "--00:00:00",
                           "00:00:00-",
                           "P1DT2H3M",
                           ""}) {
    EXPECT_EQ(parse_dotnet_time_span(text).status().code(), absl::StatusCode::kInvalidArgument)
        << text;
  }
}

// A system_clock::time_point member of a shared message is a DateTimeOffset: .NET's 7th fraction
// digit (100 ns) survives reading and writing (it was cut to microseconds before).
TEST(DotNetDateTimeTests, DateTimeOffsetMember_KeepsTheSeventhFractionDigit) {
  using Clock = std::chrono::system_clock;
  rapidjson::Document json;
  json.Parse(R"("2026-03-09T18:30:01.6932491+01:00")");
  Clock::time_point time;
  ASSERT_TRUE(internal::read_value(json, time, "$", internal::JsonStyle::DotNet).ok());
  EXPECT_EQ(time.time_since_epoch(), std::chrono::nanoseconds(1'773'077'401'693'249'100));

  rapidjson::StringBuffer buffer;
  internal::JsonWriter writer(buffer);
  internal::write_value(writer, time, internal::JsonStyle::DotNet);
  EXPECT_EQ(std::string(buffer.GetString()), R"("2026-03-09T17:30:01.6932491+00:00")");

  // A text System.Text.Json reads as a DateTimeOffset: a date alone, an offset in hours.
  json.Parse(R"("2026-03-09T18:30:01.6932491+01")");
  Clock::time_point same;
  ASSERT_TRUE(internal::read_value(json, same, "$", internal::JsonStyle::DotNet).ok());
  EXPECT_EQ(same, time);
  json.Parse(R"("1970-01-02")");
  ASSERT_TRUE(internal::read_value(json, same, "$", internal::JsonStyle::DotNet).ok());
  EXPECT_EQ(same.time_since_epoch(), std::chrono::hours(24));
  // Beyond the +/-292 years of a nanosecond time point: rejected, not wrapped.
  json.Parse(R"("0001-01-01T00:00:00Z")");
  EXPECT_FALSE(internal::read_value(json, same, "$.At", internal::JsonStyle::DotNet).ok());
  json.Parse(R"("2026-03-09t18:30:01Z")");
  EXPECT_FALSE(internal::read_value(json, same, "$.At", internal::JsonStyle::DotNet).ok());
}

// The four types read from and write to their text through the codec, in both styles; a wrong
// text names the member's JSON path.
TEST(DotNetDateTimeTests, Codec_ReadsAndWritesTheText_ErrorsNameThePath) {
  rapidjson::Document json;
  json.Parse(R"("1.02:03:04.5000000")");
  TimeSpan span{};
  ASSERT_TRUE(internal::read_value(json, span, "$.Wait").ok());
  EXPECT_EQ(span.count(), 937'845'000'000);
  rapidjson::StringBuffer buffer;
  internal::JsonWriter writer(buffer);
  internal::write_value(writer, span, internal::JsonStyle::DotNet);
  EXPECT_EQ(std::string(buffer.GetString()), R"("1.02:03:04.5000000")");

  json.Parse(R"("2026-12-05T25:00:00")");
  DateTime when;
  const absl::Status status = internal::read_value(json, when, "$.When");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "$.When: '2026-12-05T25:00:00' is outside the range of a .NET DateTime");
  EXPECT_EQ(when, DateTime());
  json.Parse("20261205");
  DateOnly day;
  EXPECT_EQ(internal::read_value(json, day, "$.Day").message(), "$.Day: expected string");
}

}  // namespace
}  // namespace whizbang
