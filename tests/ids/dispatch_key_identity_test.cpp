// Ids from an idempotency key (docs/guide/05-emission-identity.md): every reference vector of
// tests/data/dispatch-key-identity.json (computed with Python's hashlib, not with this code)
// matches byte for byte, canonical string and id; the same inputs always give the same id, and a
// different service, type or key another one.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <sstream>
#include <string>

#include "whizbang/ids/derived_identity.hpp"

namespace whizbang {
namespace {

rapidjson::Document load_vectors() {
  const std::string path = std::string(WHIZBANG_TEST_DATA_DIR) + "/dispatch-key-identity.json";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document document;
  document.Parse(text.str().c_str());
  return document;
}

TEST(DispatchKeyIdentityTests, EveryVectorMatchesCanonicalStringAndId) {
  const rapidjson::Document document = load_vectors();
  ASSERT_FALSE(document.HasParseError());
  ASSERT_TRUE(document.HasMember("vectors"));
  ASSERT_GE(document["vectors"].Size(), 7u);
  for (const auto& vector : document["vectors"].GetArray()) {
    const std::string service = vector["service"].GetString();
    const std::string type = vector["type"].GetString();
    const std::string key(vector["key"].GetString(), vector["key"].GetStringLength());
    SCOPED_TRACE(vector["canonical"].GetString());
    EXPECT_EQ(DispatchKeyIdentity::canonical(service, type, key), vector["canonical"].GetString());
    const MessageId id = DispatchKeyIdentity::derive(service, type, key);
    EXPECT_EQ(id.to_string(), vector["expected"].GetString());
    EXPECT_TRUE(is_v7(id.uuid())) << "passes every receiver's door";
  }
}

TEST(DispatchKeyIdentityTests, SameInputsSameId_AnyDifferenceAnotherId) {
  const MessageId id = DispatchKeyIdentity::derive("orders", "shop::PlaceOrder", "req-1");
  EXPECT_EQ(DispatchKeyIdentity::derive("orders", "shop::PlaceOrder", "req-1"), id);
  EXPECT_NE(DispatchKeyIdentity::derive("billing", "shop::PlaceOrder", "req-1"), id);
  EXPECT_NE(DispatchKeyIdentity::derive("orders", "shop::CancelOrder", "req-1"), id);
  EXPECT_NE(DispatchKeyIdentity::derive("orders", "shop::PlaceOrder", "req-2"), id);
}

}  // namespace
}  // namespace whizbang
