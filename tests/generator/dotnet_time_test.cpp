// GeneratorDotNetTimeTests: cases/dotnet_times.hpp compiled through whizbang_generate(); its
// DateTime, DateOnly, TimeOnly and TimeSpan members read the JSON a .NET record's
// System.Text.Json writes (hand-written here from .NET's formats), write exactly that text, and
// round-trip at 100 ns through the generated codecs (docs/guide/15-dotnet-services.md).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include "dotnet_times.hpp"
#include "whizbang_messages.hpp"

namespace clinic {
namespace {

using std::chrono::minutes;
using whizbang::DateOnly;
using whizbang::DateTime;
using whizbang::MessageTraits;
using whizbang::TimeOnly;
using whizbang::TimeSpan;

constexpr std::int64_t kSample = 639'320'778'151'234'567;  // 2026-12-05T14:30:15.1234567

std::chrono::sys_time<TimeSpan> sys(std::int64_t ticks) {
  return std::chrono::sys_time<TimeSpan>(TimeSpan(ticks - DateTime::kUnixEpochTicks));
}
std::chrono::local_time<TimeSpan> wall(std::int64_t ticks) {
  return std::chrono::local_time<TimeSpan>(TimeSpan(ticks - DateTime::kUnixEpochTicks));
}
TimeOnly time_of_day(std::chrono::hours h, minutes m) { return *TimeOnly::from(h + m); }

AppointmentBooked decode(const std::string& json) {
  absl::StatusOr<whizbang::AnyMessage> decoded =
      MessageTraits<AppointmentBooked>::info().from_json(json);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (!decoded.ok()) return {};
  return *decoded->get_if<AppointmentBooked>();
}

AppointmentBooked sample() {
  AppointmentBooked booked;
  booked.booked_at = *DateTime::utc(sys(kSample));
  booked.day = *DateOnly::from(std::chrono::year(2026) / 12 / 24);
  booked.starts = time_of_day(std::chrono::hours(9), minutes(15));
  booked.length = minutes(45);
  booked.cancelled_at = *DateTime::local(wall(kSample), minutes(60));
  booked.alternatives = {{time_of_day(std::chrono::hours(16), minutes(0)), TimeSpan(1)}};
  booked.buffers = {{"before", -minutes(5)}};
  booked.received_at = std::chrono::system_clock::time_point(sys(kSample).time_since_epoch());
  return booked;
}

TEST(GeneratorDotNetTimeTests, ReadsWhatSystemTextJsonWrites) {
  const AppointmentBooked booked = decode(
      R"({"BookedAt":"2026-12-05T14:30:15.1234567Z","Day":"2026-12-24","Starts":"09:15:00",)"
      R"("Length":"00:45:00","CancelledAt":null,)"
      R"("Alternatives":[{"Starts":"23:59:59.9999999","Length":"1.00:00:00"}],)"
      R"("Buffers":{"before":"-00:05:00"},"ReceivedAt":"2026-12-05T15:30:15.1234567+01:00"})");
  EXPECT_EQ(booked.booked_at.ticks(), kSample);
  EXPECT_EQ(booked.booked_at.kind(), whizbang::DateTimeKind::Utc);
  EXPECT_EQ(booked.day.ymd(), std::chrono::year(2026) / 12 / 24);
  EXPECT_EQ(booked.starts.since_midnight(), std::chrono::hours(9) + minutes(15));
  EXPECT_EQ(booked.length, minutes(45));
  EXPECT_FALSE(booked.cancelled_at.has_value());
  ASSERT_EQ(booked.alternatives.size(), 1u);
  EXPECT_EQ(booked.alternatives[0].starts.since_midnight().count(), 863'999'999'999);
  EXPECT_EQ(booked.alternatives[0].length, std::chrono::days(1));
  EXPECT_EQ(booked.buffers.at("before"), -minutes(5));
  // The DateTimeOffset keeps all 7 fraction digits in the nanosecond time point.
  EXPECT_EQ(booked.received_at.time_since_epoch(),
            std::chrono::nanoseconds((kSample - DateTime::kUnixEpochTicks) * 100));
}

TEST(GeneratorDotNetTimeTests, WritesSystemTextJsonText) {
  const AppointmentBooked booked = sample();
  EXPECT_EQ(
      MessageTraits<AppointmentBooked>::info().to_json(&booked),
      R"({"BookedAt":"2026-12-05T14:30:15.1234567Z","Day":"2026-12-24","Starts":"09:15:00",)"
      R"("Length":"00:45:00","CancelledAt":"2026-12-05T14:30:15.1234567+01:00",)"
      R"("Alternatives":[{"Starts":"16:00:00","Length":"00:00:00.0000001"}],)"
      R"("Buffers":{"before":"-00:05:00"},"ReceivedAt":"2026-12-05T14:30:15.1234567+00:00"})");
}

TEST(GeneratorDotNetTimeTests, RoundTripsAt100NanosecondsAndAtTheBoundaries) {
  const whizbang::MessageTypeInfo& info = MessageTraits<AppointmentBooked>::info();
  AppointmentBooked booked = sample();
  AppointmentBooked back = decode(info.to_json(&booked));
  EXPECT_EQ(back.booked_at, booked.booked_at);
  EXPECT_EQ(back.day, booked.day);
  EXPECT_EQ(back.starts, booked.starts);
  EXPECT_EQ(back.length, booked.length);
  EXPECT_EQ(back.cancelled_at, booked.cancelled_at);
  ASSERT_EQ(back.alternatives.size(), 1u);
  EXPECT_EQ(back.alternatives[0].length, TimeSpan(1));
  EXPECT_EQ(back.buffers, booked.buffers);
  EXPECT_EQ(back.received_at, booked.received_at);

  booked.booked_at = *DateTime::utc(sys(DateTime::kMaxTicks));  // 9999-12-31T23:59:59.9999999Z
  booked.day = *DateOnly::from(std::chrono::year(9999) / 12 / 31);
  booked.starts = *TimeOnly::from(std::chrono::days(1) - TimeSpan(1));
  booked.length = TimeSpan(std::numeric_limits<std::int64_t>::min());
  booked.cancelled_at = DateTime();  // 0001-01-01T00:00:00
  booked.buffers = {{"max", TimeSpan(std::numeric_limits<std::int64_t>::max())}};
  const std::string json = info.to_json(&booked);
  EXPECT_NE(json.find(R"("BookedAt":"9999-12-31T23:59:59.9999999Z")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("Length":"-10675199.02:48:05.4775808")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("CancelledAt":"0001-01-01T00:00:00")"), std::string::npos) << json;
  back = decode(json);
  EXPECT_EQ(back.booked_at, booked.booked_at);
  EXPECT_EQ(back.day, booked.day);
  EXPECT_EQ(back.starts, booked.starts);
  EXPECT_EQ(back.length, booked.length);
  EXPECT_EQ(back.cancelled_at, booked.cancelled_at);
  EXPECT_EQ(back.buffers, booked.buffers);
}

TEST(GeneratorDotNetTimeTests, MalformedMemberFailsNamingItsPath) {
  const whizbang::MessageTypeInfo& info = MessageTraits<AppointmentBooked>::info();
  absl::StatusOr<whizbang::AnyMessage> decoded =
      info.from_json(R"({"Alternatives":[{"Starts":"24:00:00"}]})");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(decoded.status().message().find("$.Alternatives[0].Starts: '24:00:00'"),
            absl::string_view::npos)
      << decoded.status();
  for (const char* json : {R"({"Day":"2026-02-30"})", R"({"BookedAt":"2026-12-05 14:30:15"})",
                           R"({"Length":"00:00:00.12345678"})", R"({"Length":3600})",
                           R"({"CancelledAt":"9999-12-31T23:59:59.9999999-01:00"})"}) {
    EXPECT_EQ(info.from_json(json).status().code(), absl::StatusCode::kInvalidArgument) << json;
  }
}

TEST(GeneratorDotNetTimeTests, UnsharedMessage_SameTextsUnderCppNames) {
  AppointmentAudited audited;
  audited.day = *DateOnly::from(std::chrono::year(2026) / 12 / 24);
  audited.length = std::chrono::hours(30);
  audited.slot = {time_of_day(std::chrono::hours(9), minutes(15)), TimeSpan(-1)};
  const whizbang::MessageTypeInfo& info = MessageTraits<AppointmentAudited>::info();
  const std::string json = info.to_json(&audited);
  EXPECT_EQ(json, R"({"day":"2026-12-24","length":"1.06:00:00",)"
                  R"("slot":{"starts":"09:15:00","length":"-00:00:00.0000001"}})");
  absl::StatusOr<whizbang::AnyMessage> decoded = info.from_json(json);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const AppointmentAudited* back = decoded->get_if<AppointmentAudited>();
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->day, audited.day);
  EXPECT_EQ(back->length, audited.length);
  EXPECT_EQ(back->slot.starts, audited.slot.starts);
  EXPECT_EQ(back->slot.length, audited.slot.length);
}

}  // namespace
}  // namespace clinic
