// Envelope JSON: short names, byte-stable round trips, handler name never serialized, clear
// errors for corrupt input and unknown types.
#include <gtest/gtest.h>

#include "store_test_support.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

TEST(EnvelopeJsonTests, RoundTrip_IsByteStable) {
  const std::string json = serialize_envelope(full_envelope());
  absl::StatusOr<Envelope> back = deserialize_envelope(json, resolve);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(serialize_envelope(*back), json);
  const OrderCreated* payload = back->payload.get_if<OrderCreated>();
  ASSERT_NE(payload, nullptr);
  EXPECT_EQ(payload->order_id, "o-\"1\"\\ü");
  EXPECT_EQ(payload->amount, -12);
  ASSERT_EQ(back->hops.size(), 2u);
  EXPECT_EQ(back->hops[1].type, HopType::Causation);
  EXPECT_EQ(back->hops[0].scope->tenant_id, "tenant-9");
  EXPECT_EQ(back->hops[0].metadata.at("a"), "1");
  ASSERT_EQ(back->receptor_invocations.size(), 2u);
  EXPECT_EQ(back->receptor_invocations[1].perspective, "Summary");
  EXPECT_EQ(back->receptor_invocations[0].stage, Stage::PostInboxDetached);
  EXPECT_EQ(back->dispatch_context.mode, DispatchModes::Both);
  EXPECT_TRUE(back->dispatch_context.is_default_dispatch);
}

TEST(EnvelopeJsonTests, ShortNames_AndOptionalMembersOmitted) {
  Envelope envelope = Envelope::create(AnyMessage::make(OrderCreated{"o", 1}), instance("orders"));
  const std::string json = serialize_envelope(envelope);
  EXPECT_EQ(json.rfind("{\"v\":1,\"id\":\"" + envelope.message_id.to_string() +
                           "\",\"t\":\"store_test::OrderCreated\",\"p\":{\"order_id\":\"o\","
                           "\"amount\":1},\"h\":[{\"si\":{\"sn\":\"orders\"",
                       0),
            0u)
      << json;
  EXPECT_EQ(json.find("\"ty\""), std::string::npos) << "Current hops omit ty";
  EXPECT_EQ(json.find("\"ss\""), std::string::npos) << "nil source service id omitted";
  EXPECT_EQ(json.find("\"ri\""), std::string::npos);
  EXPECT_NE(json.find("\"dc\":{\"m\":5,\"s\":0,\"d\":false}"), std::string::npos) << json;
}

TEST(EnvelopeJsonTests, TimestampsAreIntegerMicroseconds) {
  Envelope envelope = Envelope::create(AnyMessage::make(OrderCreated{"o", 1}), instance("orders"));
  envelope.hops.front().timestamp = TimePoint(std::chrono::microseconds(1'718'000'000'000'001));
  EXPECT_NE(serialize_envelope(envelope).find("\"ts\":1718000000000001"), std::string::npos);
}

TEST(EnvelopeJsonTests, ReferenceV1WithoutDispatchContext_ReadsAsOutbox) {
  const std::string id = MessageId::mint().to_string();
  const std::string json = "{\"v\":1,\"id\":\"" + id +
                           "\",\"t\":\"store_test::AuditEvent\",\"p\":{\"action\":\"x\"},\"h\":[]}";
  absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  EXPECT_EQ(envelope->dispatch_context.mode, DispatchModes::Outbox);
  EXPECT_EQ(envelope->dispatch_context.source, MessageSource::Local);
}

TEST(EnvelopeJsonTests, CorruptJson_IsInvalidArgumentWithOffset) {
  absl::StatusOr<Envelope> envelope = deserialize_envelope("{\"v\":1,\"id\":", resolve);
  ASSERT_FALSE(envelope.ok());
  EXPECT_EQ(envelope.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(envelope.status().message().find("malformed envelope JSON at offset"),
            std::string::npos);
  EXPECT_FALSE(deserialize_envelope("[1,2]", resolve).ok());
  EXPECT_FALSE(deserialize_envelope("", resolve).ok());
}

TEST(EnvelopeJsonTests, WrongShapes_AreInvalidArgumentNamingTheMember) {
  Envelope envelope = Envelope::create(AnyMessage::make(OrderCreated{"o", 1}), instance("orders"));
  std::string json = serialize_envelope(envelope);
  const std::string broken = json.replace(json.find("\"amount\":1"), 10, "\"amount\":\"x\"");
  absl::StatusOr<Envelope> back = deserialize_envelope(broken, resolve);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(back.status().message().find("amount"), std::string::npos) << back.status();
  const std::string bad_hops = "{\"v\":1,\"id\":\"" + MessageId::mint().to_string() + "\",\"h\":7}";
  EXPECT_EQ(deserialize_envelope(bad_hops, resolve).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(EnvelopeJsonTests, UnknownType_IsNotFoundNamingTheType) {
  const std::string json = "{\"v\":1,\"id\":\"" + MessageId::mint().to_string() +
                           "\",\"t\":\"shop::Gone\",\"p\":{},\"h\":[]}";
  absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve);
  ASSERT_FALSE(envelope.ok());
  EXPECT_EQ(envelope.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(envelope.status().message().find("shop::Gone"), std::string::npos);
  EXPECT_EQ(*peek_envelope_type(json), "shop::Gone");
}

TEST(MessageEnvelopeHandlerNameTests, HandlerName_IsNeverSerialized) {
  Envelope without = full_envelope();
  Envelope with = without;
  with.dispatch_context.handler_name = "store_test::OrderCreatedHandler";
  const std::string a = serialize_envelope(without);
  const std::string b = serialize_envelope(with);
  EXPECT_EQ(a, b);
  EXPECT_EQ(b.find("OrderCreatedHandler"), std::string::npos);
}

TEST(MessageEnvelopeHandlerNameTests, HandlerName_IsEmptyAfterDeserializing) {
  Envelope with = full_envelope();
  with.dispatch_context.handler_name = "SomeHandler";
  absl::StatusOr<Envelope> back = deserialize_envelope(serialize_envelope(with), resolve);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->dispatch_context.handler_name.empty());
  EXPECT_TRUE(back->dispatch_context.same_wire_fields(with.dispatch_context));
}

}  // namespace
}  // namespace store_test
