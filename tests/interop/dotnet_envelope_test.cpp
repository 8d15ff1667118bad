// Envelopes between this library and Whizbang .NET: one .NET wrote (no type in the body: it
// travels beside it) decodes whole, a payload with no type anywhere is an error, and what this
// library writes for a shared type passes .NET's reading rules (docs/guide/15-dotnet-services.md).
#include <gtest/gtest.h>
#include <whizbang/message/envelope_json.hpp>

#include "interop_messages.hpp"
#include "interop_registry.hpp"
#include "support/dotnet_reader_rules.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace {

// As a Whizbang .NET service serializes MessageEnvelope<JsonElement> for ShipOrder: short keys,
// the payload under C# names, no "t", the stream in md.AggregateId, a ScopeDelta.
constexpr char kDotNetShipOrder[] = R"({
  "v": 1,
  "dc": {"m": 2, "s": 0, "d": false},
  "id": "0195a8f0-1111-7000-8000-000000000002",
  "p": {"OrderId": "0195a8f0-0000-7000-8000-000000000001",
        "ShipBy": "2026-03-10T09:00:00.0000000+00:00"},
  "h": [{"si": {"sn": "Shop.OrderService", "ii": "019cd3a0-3997-776c-b616-20bbc224dcd9",
                "hn": "web-1", "pi": 4242},
         "ts": "2026-03-09T17:30:01.693249+00:00",
         "co": "0195a8f0-1111-7000-8000-000000000002",
         "to": "inbox",
         "sc": {"v": {"Sc": {"t": "tenant-7", "u": "user-3"}}},
         "md": {"AggregateId": "0195a8f0-0000-7000-8000-000000000001", "auto:ProcessId": 4242},
         "tp": "00-8fe2f609a8e13f938fe2f609a8e13f93-a8e13f938fe2f609-01"}]
})";

TEST(DotNetEnvelopeTests, DotNetEnvelope_TypeBesideIt_DecodesPayloadScopeAndStream) {
  absl::StatusOr<whizbang::Envelope> envelope = whizbang::deserialize_envelope(
      kDotNetShipOrder, resolve, "Shop.Contracts.ShipOrder, Shop.Contracts");
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const ShipOrder* command = envelope->payload.get_if<ShipOrder>();
  ASSERT_NE(command, nullptr);
  EXPECT_EQ(command->order_id.to_string(), "0195a8f0-0000-7000-8000-000000000001");
  EXPECT_EQ(command->ship_by,
            std::chrono::system_clock::time_point(std::chrono::microseconds(1773133200000000)));
  ASSERT_EQ(envelope->hops.size(), 1u);
  const whizbang::MessageHop& hop = envelope->hops[0];
  EXPECT_EQ(hop.service_instance.service_name, "Shop.OrderService");
  ASSERT_TRUE(hop.scope.has_value());
  EXPECT_EQ(hop.scope->tenant_id, "tenant-7");
  EXPECT_EQ(hop.scope->user_id, "user-3");
  ASSERT_TRUE(hop.stream_id.has_value());
  EXPECT_EQ(hop.stream_id->to_string(), "0195a8f0-0000-7000-8000-000000000001");
}

TEST(DotNetEnvelopeTests, PayloadWithNoTypeAnywhere_IsAnErrorNotAnEmptyPayload) {
  absl::StatusOr<whizbang::Envelope> envelope =
      whizbang::deserialize_envelope(kDotNetShipOrder, resolve);
  ASSERT_FALSE(envelope.ok());
  EXPECT_EQ(envelope.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(envelope.status().message().find("no type name"), std::string_view::npos)
      << envelope.status();
}

TEST(DotNetEnvelopeTests, UnknownDotNetType_IsNotFound) {
  absl::StatusOr<whizbang::Envelope> envelope = whizbang::deserialize_envelope(
      kDotNetShipOrder, resolve, "Shop.Contracts.ShipOrder, Other.Assembly");
  ASSERT_FALSE(envelope.ok());
  EXPECT_EQ(envelope.status().code(), absl::StatusCode::kNotFound) << envelope.status();
}

TEST(DotNetEnvelopeTests, BodyTypeThatIsNotTheTypeItWasSentAs_IsRefused) {
  whizbang::Envelope envelope = whizbang::Envelope::create(
      whizbang::AnyMessage::make(OrderShipped{}), {"svc", {}, "host", 1});
  const std::string json = whizbang::serialize_envelope(envelope);
  // The same type under either of its names is accepted...
  EXPECT_TRUE(whizbang::deserialize_envelope(json, resolve, "Shop.Contracts.OrderShipped").ok());
  EXPECT_TRUE(
      whizbang::deserialize_envelope(json, resolve, "Shop.Contracts.OrderShipped, Shop.Contracts")
          .ok());
  // ...another is not.
  absl::StatusOr<whizbang::Envelope> mismatched =
      whizbang::deserialize_envelope(json, resolve, "Shop.Contracts.ShipOrder");
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(DotNetEnvelopeTests, WhatWeWriteForASharedType_PassesDotNetReadingRules) {
  OrderPlaced order;
  order.customer_name = "Ada";
  order.lines = {{"SKU-1", 1, 2.5}};
  whizbang::Envelope envelope = whizbang::Envelope::create(
      whizbang::AnyMessage::make(order), {"Shop.Fulfilment", whizbang::Uuid(), "host-2", 77});
  whizbang::MessageHop& hop = envelope.hops.at(0);
  hop.topic = "shop.contracts";
  hop.stream_id = *whizbang::Uuid::parse("0195a8f0-0000-7000-8000-000000000001");
  hop.scope = whizbang::SecurityScope{"user-3", "tenant-7"};
  hop.metadata["origin"] = "cpp";
  hop.duration = std::chrono::microseconds(1500);
  hop.correlation_id = envelope.message_id;
  const std::string json = whizbang::serialize_envelope(envelope);
  const std::vector<std::string> problems = whizbang::test::DotNetReaderRules::problems(
      json,
      {"OrderId", "CustomerName", "Status", "PlacedAt", "Note", "Lines", "Tags", "TrackingURL"});
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems) << "\n" << json;
}

TEST(DotNetEnvelopeTests, ReadingRules_CatchWhatDotNetRefuses) {
  // The checker itself: an envelope in the old integer encodings fails it.
  const std::string old_style =
      R"({"id":"0195a8f0-1111-7000-8000-000000000002","p":{"order_id":"x"},)"
      R"("h":[{"si":{"sn":"a","ii":"019cd3a0-3997-776c-b616-20bbc224dcd9","hn":"h","pi":1},)"
      R"("ts":1773077401693249,"du":1500,"sc":{"u":"user-3","t":"tenant-7"}}]})";
  const std::vector<std::string> problems =
      whizbang::test::DotNetReaderRules::problems(old_style, {"OrderId"});
  const std::string all = ::testing::PrintToString(problems);
  for (const char* expected :
       {"$.p.order_id", "$.p.OrderId: missing", "$.h[0].ts", "$.h[0].du", "$.h[0].sc.u"}) {
    EXPECT_NE(all.find(expected), std::string::npos) << expected << " in " << all;
  }
}

}  // namespace
}  // namespace interop_test
