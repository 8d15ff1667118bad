// Every reference vector in tests/data/derived-identity.json matches byte for byte: the canonical
// string and the derived id.
#include <gtest/gtest.h>

#include "vectors.hpp"
#include "whizbang/ids/derived_identity.hpp"

namespace whizbang {
namespace {

TEST(DerivedIdentityVectorTests, EveryVectorMatchesCanonicalStringAndId) {
  const auto vectors = testing::load_identity_vectors();
  ASSERT_GE(vectors.size(), 10u);
  for (const auto& v : vectors) {
    SCOPED_TRACE(v.canonical);
    const auto source = Uuid::parse(v.source);
    ASSERT_TRUE(source.ok()) << source.status();
    absl::StatusOr<MessageId> derived;
    if (v.kind == "emission") {
      const std::string handler = v.handler.value_or("");
      EXPECT_EQ(EmissionIdentity::canonical(*source, v.service, handler, v.type, v.ordinal),
                v.canonical);
      derived = EmissionIdentity::derive(*source, v.service, handler, v.type, v.ordinal);
    } else {
      ASSERT_EQ(v.kind, "composite_child");
      EXPECT_EQ(CompositeChildIdentity::canonical(*source, v.ordinal, v.type), v.canonical);
      derived = CompositeChildIdentity::derive(*source, v.ordinal, v.type);
    }
    ASSERT_TRUE(derived.ok()) << derived.status();
    EXPECT_EQ(derived->to_string(), v.expected);
  }
}

}  // namespace
}  // namespace whizbang
