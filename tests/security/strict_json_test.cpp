// Untrusted JSON is read strictly: invalid UTF-8 and duplicate keys are errors, in the envelope
// and in the payload, wherever the document is parsed (bounded_json.hpp).
#include <gtest/gtest.h>

#include <string>

#include "store_test_support.hpp"
#include "tampering.hpp"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/message/envelope_json.hpp"

namespace whizbang {
namespace {

std::string order_created_json() {
  return serialize_envelope(Envelope::create(AnyMessage::make(store_test::OrderCreated{"o-1", 5}),
                                             store_test::instance("orders")));
}

absl::Status decode(std::string_view json) {
  return deserialize_envelope(json, store_test::resolve).status();
}

using security_test::replaced;

TEST(StrictJsonTests, InvalidUtf8_IsRefusedNotStoredAndSentOn) {
  const std::string json = order_created_json();
  ASSERT_TRUE(decode(json).ok());
  for (const char* bad : {"o-\xff", "o-\xc3", "o-\xed\xa0\x80" /* a lone surrogate */,
                          "o-\xc0\xaf" /* overlong '/' */}) {
    const absl::Status status = decode(replaced(json, "o-1", bad));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("encoding"), std::string::npos) << status;
  }
  // An escaped unpaired surrogate decodes to bytes that are not UTF-8 either.
  for (const char* bad : {R"(o-\uDC00)", R"(o-\uD800x)"}) {
    EXPECT_EQ(decode(replaced(json, "o-1", bad)).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  // Valid multi-byte text is fine, raw or escaped.
  EXPECT_TRUE(decode(replaced(json, "o-1", "o-\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80")).ok());
  EXPECT_TRUE(decode(replaced(json, "o-1", R"(o-\u00fc\uD83D\uDE00)")).ok());
}

TEST(StrictJsonTests, DuplicateKeys_AreRefusedWhereverTheyAre) {
  const std::string json = order_created_json();
  const std::vector<std::pair<std::string, std::string>> duplicates = {
      {R"({"v":1,)", R"({"v":1,"v":1,)"},                               // top level
      {R"("order_id":"o-1")", R"("order_id":"o-1","order_id":"o-2")"},  // payload
      {R"("sn":"orders")", R"("sn":"orders","sn":"billing")"},          // a hop's service
  };
  for (const auto& [from, to] : duplicates) {
    const absl::Status status = decode(replaced(json, from, to));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << to;
    EXPECT_NE(status.message().find("duplicate key"), std::string::npos) << status;
  }
  // The same key in two different objects is not a duplicate.
  EXPECT_TRUE(decode(json).ok());
}

// A large object's keys are sorted, not compared pairwise: 100000 keys stay quick, and a
// duplicate among them is still found.
TEST(StrictJsonTests, LargeObject_DuplicateFoundWithoutQuadraticWork) {
  std::string json = "{";
  for (int i = 0; i < 100000; ++i) json += "\"k" + std::to_string(i) + "\":0,";
  std::string unique = json;
  unique.back() = '}';
  rapidjson::Document document;
  EXPECT_FALSE(internal::parse_bounded(unique, document).IsError());
  json += "\"k77777\":1}";
  const internal::BoundedParseResult parsed = internal::parse_bounded(json, document);
  ASSERT_TRUE(parsed.IsError());
  EXPECT_EQ(internal::describe_parse_error(parsed), "duplicate key \"k77777\" in one object");
  EXPECT_TRUE(document.IsNull());
}

TEST(StrictJsonTests, DuplicateKeyInTheRefusal_IsShortened) {
  const std::string key(5000, 'k');
  const std::string json = "{\"" + key + "\":1,\"" + key + "\":2}";
  rapidjson::Document document;
  const internal::BoundedParseResult parsed = internal::parse_bounded(json, document);
  ASSERT_TRUE(parsed.IsError());
  EXPECT_LT(internal::describe_parse_error(parsed).size(), 100u);
}

}  // namespace
}  // namespace whizbang
