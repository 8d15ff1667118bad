// One parse per envelope text per worker cycle (message/envelope_parse_memo.hpp): the same text
// is answered from the memo, another text never is, and nothing outlives the outermost memo.
#include "whizbang/message/envelope_parse_memo.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace whizbang {
namespace {

const rapidjson::Document* parse(std::string_view json, rapidjson::Document& scratch) {
  internal::BoundedParseResult result;
  const rapidjson::Document* document = parsed_envelope(json, scratch, result);
  EXPECT_EQ(document == nullptr, result.IsError()) << json;
  return document;
}

TEST(EnvelopeParseMemoTests, SameTextInOneCycle_IsParsedOnce) {
  const EnvelopeParseMemo memo;
  rapidjson::Document first_scratch;
  rapidjson::Document second_scratch;
  const std::string json = R"({"id":"a","p":{"n":1}})";
  const rapidjson::Document* first = parse(json, first_scratch);
  const rapidjson::Document* again = parse(std::string(json), second_scratch);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(again, first);
  EXPECT_NE(first, &first_scratch);  // kept in the memo, not in the caller's scratch
  EXPECT_EQ((*first)["p"]["n"].GetInt(), 1);
}

TEST(EnvelopeParseMemoTests, DifferentTextsOfOneLength_AreNotConfused) {
  const EnvelopeParseMemo memo;
  rapidjson::Document scratch;
  const rapidjson::Document* one = parse(R"({"n":1})", scratch);
  const rapidjson::Document* two = parse(R"({"n":2})", scratch);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  EXPECT_NE(one, two);
  EXPECT_EQ((*one)["n"].GetInt(), 1);
  EXPECT_EQ((*two)["n"].GetInt(), 2);
}

TEST(EnvelopeParseMemoTests, NoMemoOpen_ParsesIntoTheScratchEveryTime) {
  rapidjson::Document scratch;
  const rapidjson::Document* document = parse(R"({"n":1})", scratch);
  EXPECT_EQ(document, &scratch);
  EXPECT_EQ(scratch["n"].GetInt(), 1);
}

TEST(EnvelopeParseMemoTests, MalformedText_IsAnErrorEachTimeWithItsReason) {
  const EnvelopeParseMemo memo;
  rapidjson::Document scratch;
  for (int attempt = 0; attempt < 2; ++attempt) {
    internal::BoundedParseResult result;
    EXPECT_EQ(parsed_envelope(R"({"n":1,"n":2})", scratch, result), nullptr);
    EXPECT_EQ(internal::describe_parse_error(result), "duplicate key \"n\" in one object");
  }
}

// Nested memos (a cycle that delivers in process to another service's cycle) share the
// outermost one; its close empties it, and the next cycle parses afresh.
TEST(EnvelopeParseMemoTests, NestedMemos_ShareTheOutermost_WhichEmptiesOnClose) {
  rapidjson::Document scratch;
  const std::string json = R"({"n":1})";
  {
    const EnvelopeParseMemo outer;
    const rapidjson::Document* first = parse(json, scratch);
    {
      const EnvelopeParseMemo inner;
      EXPECT_EQ(parse(json, scratch), first);
    }
    EXPECT_EQ(parse(json, scratch), first);  // the inner close kept the outer's documents
  }
  EXPECT_EQ(parse(json, scratch), &scratch);  // closed: nothing kept
}

TEST(EnvelopeParseMemoTests, LongText_IsNotKept) {
  const EnvelopeParseMemo memo;
  const std::string json = R"({"s":")" + std::string(EnvelopeParseMemo::kMaxTextBytes, 'x') + "\"}";
  rapidjson::Document scratch;
  EXPECT_EQ(parse(json, scratch), &scratch);
  EXPECT_EQ(parse(json, scratch), &scratch);
}

TEST(EnvelopeParseMemoTests, FullMemo_StillAnswersWhatItKeeps_AndParsesTheRest) {
  const EnvelopeParseMemo memo;
  rapidjson::Document scratch;
  const rapidjson::Document* first = parse(R"({"n":0})", scratch);
  for (std::size_t n = 1; n < EnvelopeParseMemo::kMaxDocuments; ++n) {
    parse(R"({"n":)" + std::to_string(n) + "}", scratch);
  }
  const std::string beyond = R"({"n":"beyond"})";
  EXPECT_EQ(parse(beyond, scratch), &scratch);
  EXPECT_EQ(parse(R"({"n":0})", scratch), first);
}

// A cycle of large envelopes keeps no more than kMaxKeptTextBytes of them.
TEST(EnvelopeParseMemoTests, LargeTextsTogether_AreKeptUpToTheirBound) {
  const EnvelopeParseMemo memo;
  rapidjson::Document scratch;
  auto text = [](std::size_t n) {
    const std::string prefix = R"({"n":)" + std::to_string(n) + R"(,"s":")";
    return prefix + std::string(EnvelopeParseMemo::kMaxTextBytes - prefix.size() - 2, 'x') + "\"}";
  };
  const std::size_t fit = EnvelopeParseMemo::kMaxKeptTextBytes / EnvelopeParseMemo::kMaxTextBytes;
  const rapidjson::Document* first = parse(text(0), scratch);
  EXPECT_NE(first, &scratch);
  for (std::size_t n = 1; n < fit; ++n) EXPECT_NE(parse(text(n), scratch), &scratch) << n;
  EXPECT_EQ(parse(text(fit), scratch), &scratch);
  EXPECT_EQ(parse(text(0), scratch), first);
}

TEST(EnvelopeParseMemoTests, AnotherThreadsMemo_IsNotThisThreads) {
  const EnvelopeParseMemo memo;
  rapidjson::Document scratch;
  const std::string json = R"({"n":1})";
  const rapidjson::Document* here = parse(json, scratch);
  const rapidjson::Document* there = nullptr;
  rapidjson::Document their_scratch;
  std::thread([&] { there = parse(json, their_scratch); }).join();
  EXPECT_EQ(there, &their_scratch);  // no memo open on that thread
  EXPECT_NE(there, here);
}

}  // namespace
}  // namespace whizbang
