// JsonCodecFuzzTests: the typed codec behind generated payloads and perspective models rejects
// hostile JSON with a status instead of crashing or wrapping values.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <whizbang/message/json_codec.hpp>

namespace {

using TimePoint = std::chrono::system_clock::time_point;

absl::Status read_time_point(const std::string& json, TimePoint& out) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  return whizbang::internal::read_value(static_cast<const whizbang::internal::JsonValue&>(document),
                                        out, "$");
}

TEST(JsonCodecFuzzTests, OutOfRangeTimePoint_IsRejectedNotWrapped) {
  TimePoint out;
  // Nanosecond time points hold about +/-292 years; more microseconds than that used to wrap.
  EXPECT_EQ(read_time_point("17960466169850204", out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(read_time_point("-9223372036854775807", out).code(),
            absl::StatusCode::kInvalidArgument);
  const auto max_micros =
      std::chrono::duration_cast<std::chrono::microseconds>(TimePoint::duration::max()).count();
  ASSERT_TRUE(read_time_point(std::to_string(max_micros), out).ok());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::microseconds>(out.time_since_epoch()).count(),
            max_micros);
}

// Found by the envelope decoder's libFuzzer target: an unset MessageId member (the nil id) was
// written, then refused when read ("expected version 7 message id"), so every receiver
// dead-lettered a message with such a member.
TEST(JsonCodecFuzzTests, NilMessageIdMember_RoundTrips) {
  rapidjson::Document document;
  document.Parse(R"("00000000-0000-0000-0000-000000000000")");
  whizbang::MessageId id = whizbang::MessageId::mint();
  ASSERT_TRUE(whizbang::internal::read_value(
                  static_cast<const whizbang::internal::JsonValue&>(document), id, "$")
                  .ok());
  EXPECT_TRUE(id.is_nil());
  // Other versions stay refused: a message id is a version 7 uuid.
  document.Parse(R"("6ba7b810-9dad-41d1-80b4-00c04fd430c8")");
  EXPECT_EQ(whizbang::internal::read_value(
                static_cast<const whizbang::internal::JsonValue&>(document), id, "$")
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(JsonCodecFuzzTests, DeeplyNestedModel_FailsCleanlyWithoutExhaustingTheStack) {
  std::vector<std::int32_t> model;
  const absl::Status status = whizbang::internal::value_from_json<std::vector<std::int32_t>>(
      std::string(1'000'000, '['), &model);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("nested too deeply"), std::string_view::npos) << status;
  EXPECT_TRUE(
      whizbang::internal::value_from_json<std::vector<std::int32_t>>("[1,2,3]", &model).ok());
  EXPECT_EQ(model, (std::vector<std::int32_t>{1, 2, 3}));
}

}  // namespace
