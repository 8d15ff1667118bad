// Payloads of messages shared with Whizbang .NET ([[whizbang::dotnet_type]]): C# property names,
// .NET's round-trip time text, integer enums; what System.Text.Json writes reads back; a struct
// held by a shared and an unshared message is spelled each one's way
// (docs/guide/15-dotnet-services.md).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "interop_messages.hpp"
#include "whizbang_messages.hpp"

namespace interop_test {
namespace {

using std::chrono::system_clock;
using whizbang::MessageTraits;

// 2026-03-09T17:30:01.693249Z
system_clock::time_point sample_time() {
  return system_clock::time_point(std::chrono::microseconds(1773077401693249));
}

OrderPlaced sample_order() {
  OrderPlaced order;
  order.order_id = *whizbang::Uuid::parse("0195a8f0-0000-7000-8000-000000000001");
  order.customer_name = "Ada";
  order.status = OrderStatus::Paid;
  order.placed_at = sample_time();
  order.lines = {{"SKU-1", 2, 9.5}};
  order.tags = {{"channel", "web"}};
  order.tracking_url = "https://example.test/t/1";
  return order;
}

rapidjson::Document parsed(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  EXPECT_FALSE(document.HasParseError()) << json;
  return document;
}

TEST(DotNetPayloadTests, SharedType_WireNameIsTheDotNetFullName) {
  const whizbang::MessageTypeInfo& info = MessageTraits<OrderPlaced>::info();
  EXPECT_EQ(info.wire_name, "Shop.Contracts.OrderPlaced");
  EXPECT_EQ(info.dotnet_type, "Shop.Contracts.OrderPlaced, Shop.Contracts");
  EXPECT_EQ(info.cpp_name, "interop_test::OrderPlaced");
  EXPECT_TRUE(MessageTraits<LineAudited>::info().dotnet_type.empty());
}

TEST(DotNetPayloadTests, SharedType_MembersAsCSharpProperties_TimesInRoundTripFormat) {
  const OrderPlaced order = sample_order();
  const std::string json = MessageTraits<OrderPlaced>::info().to_json(&order);
  EXPECT_EQ(json, R"({"OrderId":"0195a8f0-0000-7000-8000-000000000001","CustomerName":"Ada",)"
                  R"("Status":1,"PlacedAt":"2026-03-09T17:30:01.6932490+00:00","Note":null,)"
                  R"("Lines":[{"Sku":"SKU-1","Quantity":2,"UnitPrice":9.5}],)"
                  R"("Tags":{"channel":"web"},"TrackingURL":"https://example.test/t/1"})");
}

TEST(DotNetPayloadTests, SharedType_ReadsWhatSystemTextJsonWrites) {
  // As a .NET OrderPlaced record serializes: "O" times with an offset, a dictionary's keys as
  // they are, a member this side does not know.
  const std::string json =
      R"({"OrderId":"0195a8f0-0000-7000-8000-000000000001","CustomerName":"Ada","Status":2,)"
      R"("PlacedAt":"2026-03-09T18:30:01.6932490+01:00","Note":"leave at door",)"
      R"("Lines":[{"Sku":"SKU-1","Quantity":2,"UnitPrice":9.5}],"Tags":{"Channel":"app"},)"
      R"("TrackingURL":"u","LoyaltyPoints":12})";
  absl::StatusOr<whizbang::AnyMessage> decoded = MessageTraits<OrderPlaced>::info().from_json(json);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const OrderPlaced* order = decoded->get_if<OrderPlaced>();
  ASSERT_NE(order, nullptr);
  EXPECT_EQ(order->order_id.to_string(), "0195a8f0-0000-7000-8000-000000000001");
  EXPECT_EQ(order->customer_name, "Ada");
  EXPECT_EQ(order->status, OrderStatus::Shipped);
  EXPECT_EQ(order->placed_at, sample_time());  // +01:00 is the same instant
  EXPECT_EQ(order->note, "leave at door");
  ASSERT_EQ(order->lines.size(), 1u);
  EXPECT_EQ(order->lines[0].sku, "SKU-1");
  EXPECT_EQ(order->lines[0].unit_price, 9.5);
  EXPECT_EQ(order->tags.at("Channel"), "app");
  EXPECT_EQ(order->tracking_url, "u");
}

TEST(DotNetPayloadTests, SharedType_TimeWithoutOffsetIsUtc_TrimmedFractionsRead) {
  for (const char* text : {"2026-03-09T17:30:01.693249", "2026-03-09T17:30:01.693249Z",
                           "2026-03-09T17:30:01.693249+00:00"}) {
    const std::string json = std::string(R"({"PlacedAt":")") + text + "\"}";
    absl::StatusOr<whizbang::AnyMessage> decoded =
        MessageTraits<OrderPlaced>::info().from_json(json);
    ASSERT_TRUE(decoded.ok()) << text << ": " << decoded.status();
    EXPECT_EQ(decoded->get_if<OrderPlaced>()->placed_at, sample_time()) << text;
  }
}

TEST(DotNetPayloadTests, SharedType_NativeSpellingIsRefused_NamingThePath) {
  // An integer time is what the native style writes; .NET's lenient reader needs a string, and
  // so does this one for a shared type.
  absl::StatusOr<whizbang::AnyMessage> decoded =
      MessageTraits<OrderPlaced>::info().from_json(R"({"PlacedAt":1773077401693249})");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(decoded.status().message().find("$.PlacedAt"), std::string_view::npos)
      << decoded.status();
  // Native member names are not C# property names: they bind nothing, as in .NET.
  decoded = MessageTraits<OrderPlaced>::info().from_json(R"({"customer_name":"Ada"})");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->get_if<OrderPlaced>()->customer_name, "");
}

TEST(DotNetPayloadTests, NestedStruct_SpelledTheWayOfTheMessageHoldingIt) {
  LineAudited audited;
  audited.line = {"SKU-1", 2, 9.5};
  audited.audited_at = sample_time();
  EXPECT_EQ(MessageTraits<LineAudited>::info().to_json(&audited),
            R"({"line":{"sku":"SKU-1","quantity":2,"unit_price":9.5},)"
            R"("audited_at":1773077401693249})");
  const OrderPlaced order = sample_order();
  const rapidjson::Document shared = parsed(MessageTraits<OrderPlaced>::info().to_json(&order));
  EXPECT_TRUE(shared["Lines"][0].HasMember("UnitPrice"));
}

// A double reads as the nearest double to its text, as .NET's parser and strtod give it: a price
// that came off by one unit in the last place would re-encode as another number, and a value
// forwarded through a C++ service would change on the way.
TEST(DotNetPayloadTests, SharedType_DoublesReadExactly_SoTheyReEncodeUnchanged) {
  const whizbang::MessageTypeInfo& info = MessageTraits<OrderPlaced>::info();
  for (const char* text : {"184467440737095500000.0", "1.844674407370955E+20",
                           "0.30000000000000004", "9007199254740993", "2.2250738585072011e-308",
                           "1.7976931348623157e308", "5e-324", "123456789012345678901234567890"}) {
    const std::string json =
        std::string(R"({"Lines":[{"Sku":"S","Quantity":1,"UnitPrice":)") + text + "}]}";
    absl::StatusOr<whizbang::AnyMessage> decoded = info.from_json(json);
    ASSERT_TRUE(decoded.ok()) << text << ": " << decoded.status();
    const OrderPlaced* order = decoded->get_if<OrderPlaced>();
    ASSERT_NE(order, nullptr);
    ASSERT_EQ(order->lines.size(), 1u);
    EXPECT_EQ(order->lines[0].unit_price, std::strtod(text, nullptr)) << text;
    const std::string encoded = info.to_json(order);
    absl::StatusOr<whizbang::AnyMessage> again = info.from_json(encoded);
    ASSERT_TRUE(again.ok()) << encoded;
    EXPECT_EQ(info.to_json(again->get_if<OrderPlaced>()), encoded) << text;
  }
}

TEST(DotNetPayloadTests, SharedType_RoundTripsThroughItsOwnEncoding) {
  const OrderPlaced order = sample_order();
  const whizbang::MessageTypeInfo& info = MessageTraits<OrderPlaced>::info();
  absl::StatusOr<whizbang::AnyMessage> back = info.from_json(info.to_json(&order));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(info.to_json(back->get_if<OrderPlaced>()), info.to_json(&order));
}

}  // namespace
}  // namespace interop_test
