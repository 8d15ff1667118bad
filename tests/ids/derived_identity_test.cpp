// The layout shared by every derived id (the cascade page's "Layout: sorts where its source
// sorts").
#include <gtest/gtest.h>

#include <set>

#include "whizbang/ids/derived_identity.hpp"

namespace whizbang {
namespace {

Uuid uuid(std::string_view text) { return *Uuid::parse(text); }

MessageId from_canonical(const Uuid& source, std::int64_t ordinal, std::string_view canonical) {
  auto id = DerivedIdentity::from_canonical(source, ordinal, canonical);
  EXPECT_TRUE(id.ok()) << id.status();
  return *id;
}

std::uint32_t ordinal_field(const MessageId& id) {
  const auto& b = id.uuid().bytes();
  return (static_cast<std::uint32_t>(b[10]) << 4) | (b[11] >> 4);
}

TEST(DerivedIdentityTests, FromCanonical_KeepsTheSourcesFirst80Bits) {
  const Uuid source = uuid("0190f3c4-1a2b-7c3d-8e4f-a1b2c3d4e5f6");
  const MessageId id = from_canonical(source, 3, "anything");
  for (int i = 0; i < 10; ++i) EXPECT_EQ(id.uuid().bytes()[i], source.bytes()[i]) << "byte " << i;
}

TEST(DerivedIdentityTests, FromCanonical_ForcesVersion7AndRfcVariantOnANonV7Source) {
  const Uuid source = uuid("d6567964-cfba-a4dd-12f0-34c143d2ba11");
  const MessageId id = from_canonical(source, 0, "x");
  EXPECT_TRUE(is_v7(id.uuid()));
  EXPECT_EQ(id.uuid().bytes()[6] & 0x0F, source.bytes()[6] & 0x0F);
  EXPECT_EQ(id.uuid().bytes()[8] & 0x3F, source.bytes()[8] & 0x3F);
}

TEST(DerivedIdentityTests, FromCanonical_PutsTheOrdinalInBits80To91) {
  const Uuid source = MessageId::mint().uuid();
  for (std::int64_t ordinal : {0, 1, 42, 255, 4095}) {
    EXPECT_EQ(ordinal_field(from_canonical(source, ordinal, "c")), ordinal);
  }
}

TEST(DerivedIdentityTests, FromCanonical_OrdinalPastTheField_SaturatesAndStaysUnique) {
  const Uuid source = MessageId::mint().uuid();
  const MessageId below = from_canonical(source, 4094, "c4094");
  std::set<MessageId> seen;
  for (std::int64_t ordinal = 4095; ordinal < 4095 + 200; ++ordinal) {
    const MessageId id = from_canonical(source, ordinal, "c" + std::to_string(ordinal));
    EXPECT_EQ(ordinal_field(id), 4095u);
    EXPECT_LT(below, id);
    EXPECT_TRUE(seen.insert(id).second) << "duplicate at ordinal " << ordinal;
  }
}

TEST(DerivedIdentityTests, FromCanonical_ConsecutiveSources_DerivedIdsSortInSourceOrder) {
  MessageId previous_source = MessageId::mint();
  MessageId previous = from_canonical(previous_source.uuid(), 7, "a");
  for (int i = 0; i < 1000; ++i) {
    const MessageId source = MessageId::mint();
    const MessageId derived = from_canonical(source.uuid(), 0, "b" + std::to_string(i));
    ASSERT_LT(previous, derived) << "source " << source.to_string();
    previous = derived;
  }
}

TEST(DerivedIdentityTests, FromCanonical_OneSource_DerivedIdsSortInOrdinalOrder) {
  const Uuid source = MessageId::mint().uuid();
  MessageId previous = from_canonical(source, 0, "c0");
  for (std::int64_t ordinal = 1; ordinal <= 4095; ++ordinal) {
    const MessageId id = from_canonical(source, ordinal, "c" + std::to_string(ordinal));
    ASSERT_LT(previous, id) << "ordinal " << ordinal;
    previous = id;
  }
}

TEST(DerivedIdentityTests, FromCanonical_NilSource_IsAnError) {
  const auto id = DerivedIdentity::from_canonical(Uuid(), 0, "c");
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(id.status().message().find("source"), std::string_view::npos);
}

TEST(DerivedIdentityTests, FromCanonical_NegativeOrdinal_IsAnError) {
  const auto id = DerivedIdentity::from_canonical(MessageId::mint().uuid(), -1, "c");
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("ordinal"), std::string_view::npos);
}

}  // namespace
}  // namespace whizbang
