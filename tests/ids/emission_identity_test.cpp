// EmissionIdentity and CompositeChildIdentity (the cascade page's "Emission identity").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "whizbang/ids/derived_identity.hpp"

namespace whizbang {
namespace {

MessageId derive(const MessageId& source, std::string_view service, std::string_view handler,
                 std::string_view type, std::int64_t ordinal) {
  auto id = EmissionIdentity::derive(source.uuid(), service, handler, type, ordinal);
  EXPECT_TRUE(id.ok()) << id.status();
  return *id;
}

TEST(EmissionIdentityTests, Derive_SameInputs_ReturnsSameId) {
  const MessageId source = MessageId::mint();
  EXPECT_EQ(derive(source, "orders", "H", "shop::OrderCreated", 0),
            derive(source, "orders", "H", "shop::OrderCreated", 0));
}

TEST(EmissionIdentityTests, Derive_EachInputChangesTheId) {
  const MessageId source = MessageId::mint();
  const MessageId base = derive(source, "orders", "H", "T", 1);
  EXPECT_NE(base, derive(MessageId::mint(), "orders", "H", "T", 1));
  EXPECT_NE(base, derive(source, "billing", "H", "T", 1));
  EXPECT_NE(base, derive(source, "orders", "H2", "T", 1));
  EXPECT_NE(base, derive(source, "orders", "H", "T2", 1));
  EXPECT_NE(base, derive(source, "orders", "H", "T", 2));
}

TEST(EmissionIdentityTests, Derive_ResultIsVersion7ShapedWithRfcVariant) {
  const MessageId id = derive(MessageId::mint(), "orders", "", "T", 0);
  EXPECT_EQ(id.uuid().version(), 7);
  EXPECT_EQ(id.uuid().variant_bits(), 0b10);
}

TEST(EmissionIdentityTests, Derive_ResultIsAcceptedByTheMessageIdValueObject) {
  const auto non_v7_source = *Uuid::parse("d6567964-cfba-a4dd-12f0-34c143d2ba11");
  const auto id = EmissionIdentity::derive(non_v7_source, "orders", "", "T", 0);
  ASSERT_TRUE(id.ok());
  const auto accepted = MessageId::from(id->uuid());
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ(*accepted, *id);
  EXPECT_TRUE(MessageId::parse(id->to_string()).ok());
}

TEST(EmissionIdentityTests, Derive_InheritsFirst80BitsOfSource) {
  const MessageId source = MessageId::mint();
  const MessageId id = derive(source, "orders", "H", "T", 9);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(id.uuid().bytes()[i], source.uuid().bytes()[i]);
  EXPECT_EQ(id.unix_millis(), source.unix_millis());
  EXPECT_EQ(id.counter(), source.counter());
}

TEST(EmissionIdentityTests, Derive_NilSourceOrNegativeOrdinal_IsAnError) {
  EXPECT_FALSE(EmissionIdentity::derive(Uuid(), "orders", "", "T", 0).ok());
  EXPECT_FALSE(EmissionIdentity::derive(MessageId::mint().uuid(), "orders", "", "T", -5).ok());
}

// derive writes short canonical texts on the stack and long ones on the heap; the id must not
// depend on which, so every type length around the switch agrees with the canonical string.
TEST(EmissionIdentityTests, Derive_AnyNameLength_HashesTheCanonicalString) {
  const Uuid source = MessageId::mint().uuid();
  for (std::size_t length = 0; length <= 400; ++length) {
    const std::string type(length, 't');
    const auto id = EmissionIdentity::derive(source, "orders", "H", type, 7);
    ASSERT_TRUE(id.ok()) << id.status();
    const std::string canonical = EmissionIdentity::canonical(source, "orders", "H", type, 7);
    EXPECT_EQ(*id, *DerivedIdentity::from_canonical(source, 7, canonical)) << length;
  }
}

MessageId child(const MessageId& composite, std::int64_t ordinal, std::string_view type) {
  auto id = CompositeChildIdentity::derive(composite.uuid(), ordinal, type);
  EXPECT_TRUE(id.ok()) << id.status();
  return *id;
}

TEST(CompositeChildIdentityTests, Derive_SameInputs_ReturnsSameId) {
  const MessageId composite = MessageId::mint();
  EXPECT_EQ(child(composite, 3, "shop::Line"), child(composite, 3, "shop::Line"));
  EXPECT_NE(child(composite, 3, "shop::Line"), child(composite, 3, "shop::Other"));
}

TEST(CompositeChildIdentityTests, Derive_ChildrenSortInTheirOrderWithinTheComposite) {
  const MessageId composite = MessageId::mint();
  std::vector<MessageId> children;
  for (int i = 0; i < 50; ++i) children.push_back(child(composite, i, i % 2 ? "A" : "B"));
  EXPECT_TRUE(std::is_sorted(children.begin(), children.end()));
  EXPECT_EQ(std::adjacent_find(children.begin(), children.end()), children.end());
}

TEST(CompositeChildIdentityTests, Derive_ChildrenOfConsecutiveComposites_SortInCompositeOrder) {
  const MessageId first = MessageId::mint();
  const MessageId second = MessageId::mint();
  const MessageId last_of_first = child(first, 4095, "A");
  const MessageId first_of_second = child(second, 0, "A");
  EXPECT_LT(last_of_first, first_of_second);
}

TEST(CompositeChildIdentityTests, Derive_AnyTypeLength_HashesTheCanonicalString) {
  const Uuid composite = MessageId::mint().uuid();
  for (std::size_t length = 0; length <= 400; ++length) {
    const std::string type(length, 't');
    const auto id = CompositeChildIdentity::derive(composite, 3, type);
    ASSERT_TRUE(id.ok()) << id.status();
    const std::string canonical = CompositeChildIdentity::canonical(composite, 3, type);
    EXPECT_EQ(*id, *DerivedIdentity::from_canonical(composite, 3, canonical)) << length;
  }
}

}  // namespace
}  // namespace whizbang
