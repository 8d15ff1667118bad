// Untrusted JSON is read strictly: invalid UTF-8 and duplicate keys are errors, in the envelope
// and in the payload, wherever the document is parsed (bounded_json.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

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
  // Wherever the bad byte stands: after an escape, at any offset in a long string, in a key.
  for (std::size_t at = 0; at < 20; ++at) {
    std::string text(20, 'a');
    text.insert(at, "\xff");
    for (const std::string& bad :
         {"{\"k\":\"" + text + "\"}", "{\"k\":\"\\n" + text + "\"}", "{\"" + text + "\":1}"}) {
      rapidjson::Document document;
      EXPECT_TRUE(internal::parse_bounded(bad, document).IsError()) << bad;
    }
  }
  // Valid multi-byte text is fine, raw or escaped.
  EXPECT_TRUE(decode(replaced(json, "o-1", "o-\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80")).ok());
  EXPECT_TRUE(decode(replaced(json, "o-1", R"(o-\u00fc\uD83D\uDE00)")).ok());
}

TEST(StrictJsonTests, ANulByte_IsRefused_AndDoesNotHideWhatFollowsIt) {
  const std::string json = order_created_json();
  // Whatever comes after a NUL byte is part of the text: a reader that stopped there would
  // accept an envelope with anything appended.
  const std::string appended = json + std::string(1, '\0') + R"({"id":"smuggled"})";
  const absl::Status status = decode(appended);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("offset " + std::to_string(json.size())), std::string::npos)
      << status;
  EXPECT_EQ(decode(json + std::string(1, '\0')).code(), absl::StatusCode::kInvalidArgument);
  // Inside a string, a raw NUL is a control character JSON does not allow.
  EXPECT_EQ(decode(replaced(json, "o-1", std::string("o-\0x", 4))).code(),
            absl::StatusCode::kInvalidArgument);
  // The text is exactly the view: what lies beyond it in memory is not read.
  const std::string followed = json + "]]] trailing bytes outside the view";
  rapidjson::Document document;
  const internal::BoundedParseResult parsed =
      internal::parse_bounded(std::string_view(followed).substr(0, json.size()), document);
  EXPECT_FALSE(parsed.IsError()) << internal::describe_parse_error(parsed);
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

// A small object's keys are compared only where their signatures (length, first and last byte)
// may be equal: a duplicate at any two places of objects up to that size is found, and keys that
// share a signature without being equal ("a0b", "a1b", ...) are not taken for one.
TEST(StrictJsonTests, SmallObject_DuplicateAtAnyTwoPlaces_Found_LookalikesAreNot) {
  for (int size = 2; size <= 16; ++size) {
    std::vector<std::string> keys;
    for (int i = 0; i < size; ++i)
      keys.push_back("a" + std::to_string(i % 10) + "b" + std::string(i / 10, 'b'));
    const auto object = [](const std::vector<std::string>& names) {
      std::string json = "{";
      for (const std::string& name : names) json += "\"" + name + "\":0,";
      json.back() = '}';
      return json;
    };
    rapidjson::Document document;
    const internal::BoundedParseResult unique = internal::parse_bounded(object(keys), document);
    EXPECT_FALSE(unique.IsError()) << internal::describe_parse_error(unique) << object(keys);
    for (int first = 0; first < size; ++first) {
      for (int second = first + 1; second < size; ++second) {
        std::vector<std::string> names = keys;
        names[static_cast<std::size_t>(second)] = names[static_cast<std::size_t>(first)];
        const internal::BoundedParseResult parsed =
            internal::parse_bounded(object(names), document);
        ASSERT_TRUE(parsed.IsError()) << object(names);
        EXPECT_EQ(internal::describe_parse_error(parsed),
                  "duplicate key \"" + names[static_cast<std::size_t>(first)] + "\" in one object");
      }
    }
  }
}

TEST(StrictJsonTests, DuplicateKeyInTheRefusal_IsShortened) {
  const std::string key(5000, 'k');
  const std::string json = "{\"" + key + "\":1,\"" + key + "\":2}";
  rapidjson::Document document;
  const internal::BoundedParseResult parsed = internal::parse_bounded(json, document);
  ASSERT_TRUE(parsed.IsError());
  EXPECT_LT(internal::describe_parse_error(parsed).size(), 100u);
}

// Strings are decoded in place, in a copy of the text the document keeps (bounded_json.hpp), a
// word at a time up to the next escape: every escape at every offset of strings around a word's
// length decodes as rapidjson's own reader decodes it, keys and values alike, and numbers after
// a decoded string still read from their text.
TEST(StrictJsonTests, Strings_DecodedInPlace_AsRapidJsonDecodesThem) {
  const std::vector<std::string> escapes = {R"(\")",     R"(\\)",           R"(\n)",   R"(\/)",
                                            R"(\u00e9)", R"(\uD83D\uDE00)", "\xc3\xbc"};
  for (std::size_t length = 0; length <= 20; ++length) {
    for (std::size_t at = 0; at <= length; ++at) {
      for (const std::string& escape : escapes) {
        std::string text;
        for (std::size_t i = 0; i < length; ++i) text += static_cast<char>('a' + i % 26);
        text.insert(at, escape);
        const std::string json = "{\"" + text + "\":[\"" + text + escape + text + "\",0.1]}";
        rapidjson::Document expected;
        expected.Parse(json.data(), json.size());
        ASSERT_FALSE(expected.HasParseError()) << json;
        rapidjson::Document document;
        const internal::BoundedParseResult parsed = internal::parse_bounded(json, document);
        ASSERT_FALSE(parsed.IsError()) << json << ": " << internal::describe_parse_error(parsed);
        ASSERT_TRUE(document == expected) << json;
        ASSERT_EQ(document.MemberBegin()->value[1].GetDouble(), 0.1) << json;
      }
    }
  }
}

// A document parsed into again keeps nothing of the earlier text when the new one fails, however
// it fails: a caller that missed the error reads null, never the last message's members.
TEST(StrictJsonTests, FailedParse_LeavesTheDocumentNull) {
  for (const std::string bad : {"{\"a\":\"\xff\"}", "{\"a\":", "[1e999]", "{\"a\":1,\"a\":2}"}) {
    rapidjson::Document document;
    ASSERT_FALSE(internal::parse_bounded(R"({"sender":"alice"})", document).IsError());
    EXPECT_TRUE(internal::parse_bounded(bad, document).IsError()) << bad;
    EXPECT_TRUE(document.IsNull()) << bad;
  }
}

// The document's strings live as long as the document, not as long as the text it was parsed
// from (under AddressSanitizer, a string left pointing into the text fails here).
TEST(StrictJsonTests, ParsedDocument_OutlivesItsText) {
  rapidjson::Document document;
  {
    std::string text = R"({"name":"a string longer than a short string's inline buffer\n"})";
    ASSERT_FALSE(internal::parse_bounded(text, document).IsError());
    text.assign(text.size(), 'x');
  }
  EXPECT_EQ(std::string(document["name"].GetString()),
            "a string longer than a short string's inline buffer\n");
}

// Numbers keep the types a reader of the document expects (integers by range, as rapidjson types
// them), doubles read as the nearest double to their text, and a number no double holds is
// refused with a reason rather than read as infinity. A zero with a large exponent once reached
// undefined behaviour in rapidjson's own full-precision reader.
TEST(StrictJsonTests, Numbers_ReadByRangeAndCorrectlyRounded) {
  auto read = [](const std::string& text) {
    rapidjson::Document document;
    const internal::BoundedParseResult parsed = internal::parse_bounded("[" + text + "]", document);
    EXPECT_FALSE(parsed.IsError()) << text << ": " << internal::describe_parse_error(parsed);
    return document.IsArray() ? rapidjson::Value(document[0], document.GetAllocator())
                              : rapidjson::Value();
  };
  EXPECT_TRUE(read("4294967295").IsUint());
  EXPECT_FALSE(read("4294967296").IsUint());
  EXPECT_TRUE(read("4294967296").IsUint64());
  EXPECT_TRUE(read("-2147483648").IsInt());
  EXPECT_FALSE(read("-2147483649").IsInt());
  EXPECT_EQ(read("-9223372036854775808").GetInt64(), INT64_MIN);
  EXPECT_EQ(read("18446744073709551615").GetUint64(), UINT64_MAX);
  EXPECT_TRUE(read("-0").IsInt());
  EXPECT_EQ(read("-0").GetInt(), 0);
  EXPECT_TRUE(read("18446744073709551616").IsDouble());
  EXPECT_EQ(read("18446744073709551616").GetDouble(), 18446744073709551616.0);
  EXPECT_TRUE(read("1.0").IsDouble());
  EXPECT_TRUE(std::signbit(read("-0.0").GetDouble()));
  for (const char* text : {"184467440737095500000.0", "0.30000000000000004", "2.5e-324",
                           "2.2250738585072011e-308", "1.7976931348623157e308", "1E+2"}) {
    EXPECT_EQ(read(text).GetDouble(), std::strtod(text, nullptr)) << text;
  }
  // Wherever the number stands: spaced in an array, after a key, or the whole document.
  rapidjson::Document placed;
  ASSERT_FALSE(internal::parse_bounded(R"({"a": [ 0.30000000000000004 ,1.5],"b":2.5e-324})", placed)
                   .IsError());
  EXPECT_EQ(placed["a"][0].GetDouble(), 0.30000000000000004);
  EXPECT_EQ(placed["b"].GetDouble(), 5e-324);
  ASSERT_FALSE(internal::parse_bounded("184467440737095500000.0", placed).IsError());
  EXPECT_EQ(placed.GetDouble(), 184467440737095500000.0);
  // Too small for a double: zero, with its sign.
  for (const char* text : {"0e-30", "0.0e-400", "1e-400", "0.0000001e-320", "1e-2147483650"}) {
    EXPECT_EQ(read(text).GetDouble(), 0.0) << text;
  }
  EXPECT_TRUE(std::signbit(read("-1e-400").GetDouble()));
  // Too big for one: refused, whichever reader noticed.
  const std::vector<std::string> too_big = {"9e308", "-1.8e308", "100e307", "1e309",
                                            std::string(400, '9')};
  for (const std::string& text : too_big) {
    rapidjson::Document document;
    const internal::BoundedParseResult parsed = internal::parse_bounded("[" + text + "]", document);
    ASSERT_TRUE(parsed.IsError()) << text;
    EXPECT_NE(internal::describe_parse_error(parsed).find("big"), std::string::npos)
        << internal::describe_parse_error(parsed);
    EXPECT_TRUE(document.IsNull());
  }
}

}  // namespace
}  // namespace whizbang
