// What the event store keeps of an envelope (store_internal::event_parts): its payload and
// {"MessageId","Hops"}, as the sender wrote them.
#include <gtest/gtest.h>

#include <string>

#include "store/store_support.hpp"

namespace whizbang::store_internal {
namespace {

TEST(EventPartsTests, PayloadAndHops_AreKeptAsTheSenderWroteThem) {
  // A .NET sender escapes non-ASCII text, and a payload may carry an integer past 64 bits:
  // written out again from a parsed document, both would change.
  const std::string json =
      R"({"id":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","p":{"Name":"Caf\u00e9",)"
      R"("Big":123456789012345678901234567890,"Ratio":1.50},"h":[{"Type":0,)"
      R"("Topic":"caf\u00e9"}],"dp":0})";
  const absl::StatusOr<EventParts> parts = event_parts(json);
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->event_data,
            R"({"Name":"Caf\u00e9","Big":123456789012345678901234567890,"Ratio":1.50})");
  EXPECT_EQ(parts->metadata, R"({"MessageId":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",)"
                             R"("Hops":[{"Type":0,"Topic":"caf\u00e9"}]})");
}

TEST(EventPartsTests, NoHops_AreAnEmptyList) {
  const absl::StatusOr<EventParts> parts = event_parts(R"({ "p" : [1, 2] , "id" : "a" })");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->event_data, "[1, 2]");
  EXPECT_EQ(parts->metadata, R"({"MessageId":"a","Hops":[]})");
}

TEST(EventPartsTests, EscapedKeys_AreReadFromTheDocument) {
  const absl::StatusOr<EventParts> parts =
      event_parts(R"({"\u0069d":"a","\u0070":{"n": 1},"h":[ ]})");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->event_data, R"({"n":1})");
  EXPECT_EQ(parts->metadata, R"({"MessageId":"a","Hops":[]})");
}

TEST(EventPartsTests, MalformedOrIncompleteEnvelope_IsRefused) {
  for (const std::string json :
       {R"({"id":"a","p":{)", R"({"id":"a"})", R"({"p":{}})", R"({"id":1,"p":{}})",
        R"([{"id":"a","p":{}}])", R"({"id":"a","p":{},"p":{}})"}) {
    const absl::StatusOr<EventParts> parts = event_parts(json);
    EXPECT_EQ(parts.status().code(), absl::StatusCode::kInvalidArgument) << json;
  }
}

}  // namespace
}  // namespace whizbang::store_internal
