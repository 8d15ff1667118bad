// internal::parse_uuid: the reader of every id in an envelope (whizbang/message/json_codec.hpp).
#include <gtest/gtest.h>

#include <string>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/message/json_codec.hpp"

namespace whizbang {
namespace {

TEST(ParseUuidTests, EveryMintedId_ReadsBackAsUuidParseReadsIt) {
  for (int i = 0; i < 1000; ++i) {
    const Uuid id = MessageId::mint().uuid();
    const std::string text = id.to_string();
    ASSERT_EQ(internal::parse_uuid(text), id) << text;
    ASSERT_EQ(*Uuid::parse(text), id) << text;
  }
}

TEST(ParseUuidTests, UpperAndLowerCaseDigits_ReadAlike) {
  const std::optional<Uuid> lower = internal::parse_uuid("0a1b2c3d-4e5f-6a7b-8c9d-aebfcadbecfd");
  const std::optional<Uuid> upper = internal::parse_uuid("0A1B2C3D-4E5F-6A7B-8C9D-AEBFCADBECFD");
  ASSERT_TRUE(lower.has_value());
  EXPECT_EQ(lower, upper);
  EXPECT_EQ(lower->to_string(), "0a1b2c3d-4e5f-6a7b-8c9d-aebfcadbecfd");
}

TEST(ParseUuidTests, AnyCharacterNotAHexDigit_AtAnyDigit_IsRefused) {
  const std::string valid = "0a1b2c3d-4e5f-6a7b-8c9d-aebfcadbecfd";
  for (std::size_t at = 0; at < valid.size(); ++at) {
    if (valid[at] == '-') continue;
    for (const char bad : {'g', 'G', '-', ' ', '\0', '/', ':', '@', '`', '\xff'}) {
      std::string text = valid;
      text[at] = bad;
      EXPECT_EQ(internal::parse_uuid(text), std::nullopt) << "position " << at << ": " << text;
    }
  }
}

TEST(ParseUuidTests, DashesOutOfPlace_OrAnotherLength_AreRefused) {
  const std::string valid = "0a1b2c3d-4e5f-6a7b-8c9d-aebfcadbecfd";
  for (const std::size_t dash : {8u, 13u, 18u, 23u}) {
    std::string text = valid;
    text[dash] = '0';
    EXPECT_EQ(internal::parse_uuid(text), std::nullopt) << text;
  }
  EXPECT_EQ(internal::parse_uuid("0a1b2c3d4e5f6a7b8c9daebfcadbecfd"), std::nullopt);
  EXPECT_EQ(internal::parse_uuid(valid + "0"), std::nullopt);
  EXPECT_EQ(internal::parse_uuid(valid.substr(1)), std::nullopt);
  EXPECT_EQ(internal::parse_uuid(""), std::nullopt);
}

}  // namespace
}  // namespace whizbang
