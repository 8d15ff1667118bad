// The text of an object's top-level members, cut from the object's text
// (message/json_member_text.hpp): exactly as written, strings and nesting skipped whole.
#include "whizbang/internal/json_member_text.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace whizbang::internal {
namespace {

constexpr std::array<std::string_view, 3> kKeys = {"id", "p", "h"};

struct Found {
  bool read = false;
  std::array<std::optional<std::string_view>, 3> texts;
};

Found find(std::string_view json) {
  Found found;
  found.read = top_level_member_texts(json, kKeys, found.texts);
  return found;
}

TEST(JsonMemberTextTests, MembersOfAnyKind_AreCutAsWritten) {
  const std::string json =
      R"({"id":"0190","x":[1,{"p":2}],"p":{"a":"b","n":[1.50,-0,1e2]},"h":null})";
  const Found found = find(json);
  ASSERT_TRUE(found.read);
  EXPECT_EQ(found.texts[0], R"("0190")");
  EXPECT_EQ(found.texts[1], R"({"a":"b","n":[1.50,-0,1e2]})");  // the nested "p" is not it
  EXPECT_EQ(found.texts[2], "null");
}

TEST(JsonMemberTextTests, WhitespaceAroundValues_IsNotPartOfThem) {
  const Found found = find(" {\n \"p\" :\t 12345678901234567890123 ,\r\n \"id\": \"a\" \n} ");
  ASSERT_TRUE(found.read);
  EXPECT_EQ(found.texts[0], R"("a")");
  EXPECT_EQ(found.texts[1], "12345678901234567890123");
  EXPECT_EQ(found.texts[2], std::nullopt);
}

TEST(JsonMemberTextTests, BracketsAndQuotesInsideStrings_DoNotEndValues) {
  const std::string json =
      R"({"p":{"s":"}]\"{[","t":"\\","u":"\\\"}"},"h":["]",{"}":"\""}],"id":"z"})";
  const Found found = find(json);
  ASSERT_TRUE(found.read);
  EXPECT_EQ(found.texts[1], R"({"s":"}]\"{[","t":"\\","u":"\\\"}"})");
  EXPECT_EQ(found.texts[2], R"(["]",{"}":"\""}])");
  EXPECT_EQ(found.texts[0], R"("z")");
}

TEST(JsonMemberTextTests, EscapedKey_AsksForTheDocument) {
  EXPECT_FALSE(find(R"({"\u0070":{"a":1},"id":"a"})").read);
}

TEST(JsonMemberTextTests, NotAnObject_AsksForTheDocument) {
  EXPECT_FALSE(find(R"([{"p":1}])").read);
  EXPECT_FALSE(find(R"("p")").read);
  EXPECT_FALSE(find("").read);
  const Found empty = find(" { } ");
  ASSERT_TRUE(empty.read);
  EXPECT_EQ(empty.texts[1], std::nullopt);
}

TEST(JsonMemberTextTests, CutShortOrMalformedText_IsReadSafely) {
  // Not what the function is for (its text has parsed), but no text reads past its end.
  for (const std::string json : {R"({"p":{"a":"b)", R"({"p":[1,2)", R"({"p":"\)", R"({"p")",
                                 R"({"p":)", R"({"p":1 "id")", R"({"p)", R"({"p":1,)"}) {
    EXPECT_FALSE(find(json).read) << json;
  }
}

}  // namespace
}  // namespace whizbang::internal
