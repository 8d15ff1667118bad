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

TEST(EnvelopeJsonTests, HopTimesAndScope_AreWrittenAsDotNetWritesThem) {
  Envelope envelope = Envelope::create(AnyMessage::make(OrderCreated{"o", 1}), instance("orders"));
  MessageHop& hop = envelope.hops.front();
  hop.timestamp = TimePoint(std::chrono::microseconds(1'718'000'000'000'001));
  hop.duration = std::chrono::microseconds(1'500'000);
  hop.scope = SecurityScope{"user-1", "tenant-1"};
  const Uuid stream = MessageId::mint().uuid();
  hop.stream_id = stream;
  const std::string json = serialize_envelope(envelope);
  EXPECT_NE(json.find("\"ts\":\"2024-06-10T06:13:20.000001+00:00\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"du\":\"00:00:01.5000000\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"sc\":{\"v\":{\"Sc\":{\"t\":\"tenant-1\",\"u\":\"user-1\"}}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"md\":{\"AggregateId\":\"" + stream.to_string() + "\"}"), std::string::npos)
      << json;
}

// The writer copies text that needs no escape whole and leaves the rest to rapidjson: each kind of
// byte that must be escaped, in a hop's own strings and in metadata names and values, comes out
// escaped as JSON says and reads back as it was.
TEST(EnvelopeJsonTests, HopTextNeedingEscapes_IsEscapedAndReadsBack) {
  Envelope envelope = Envelope::create(AnyMessage::make(OrderCreated{"o", 1}), instance("orders"));
  MessageHop& hop = envelope.hops.front();
  hop.topic = "a\"b";
  hop.causation_type = "back\\slash";
  hop.trace_parent = std::string("nul\0tab\tline\n", 13);
  hop.metadata["k\x01"] = "\x1f";
  hop.metadata["plain"] = "caf\xc3\xa9";  // UTF-8 is written as it is
  const std::string json = serialize_envelope(envelope);
  EXPECT_NE(json.find(R"("to":"a\"b")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("ct":"back\\slash")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("tp":"nul\u0000tab\tline\n")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("k\u0001":"\u001F")"), std::string::npos) << json;
  EXPECT_NE(json.find("\"plain\":\"caf\xc3\xa9\""), std::string::npos) << json;
  absl::StatusOr<Envelope> back = deserialize_envelope(json, resolve);
  ASSERT_TRUE(back.ok()) << back.status();
  const MessageHop& read = back->hops.front();
  EXPECT_EQ(read.topic, hop.topic);
  EXPECT_EQ(read.causation_type, hop.causation_type);
  EXPECT_EQ(read.trace_parent, hop.trace_parent);
  EXPECT_EQ(read.metadata.at("k\x01"), "\x1f");
  EXPECT_EQ(read.metadata.at("plain"), "caf\xc3\xa9");
  EXPECT_EQ(serialize_envelope(*back), json);
}

// Earlier envelopes of this runtime (stored rows, messages in flight) still read.
TEST(EnvelopeJsonTests, EarlierIntegerTimesAndFlatScope_StillRead) {
  const std::string json = "{\"v\":1,\"id\":\"" + MessageId::mint().to_string() +
                           "\",\"t\":\"store_test::AuditEvent\",\"p\":{\"action\":\"x\"},"
                           "\"h\":[{\"si\":{\"sn\":\"orders\",\"ii\":\"" +
                           MessageId::mint().to_string() +
                           "\",\"hn\":\"h\",\"pi\":1},\"ts\":1718000000000001,"
                           "\"sc\":{\"u\":\"user-1\",\"t\":\"tenant-1\"},\"du\":1500}]}";
  absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const MessageHop& hop = envelope->hops.at(0);
  EXPECT_EQ(hop.timestamp, TimePoint(std::chrono::microseconds(1'718'000'000'000'001)));
  EXPECT_EQ(hop.duration, std::chrono::microseconds(1500));
  ASSERT_TRUE(hop.scope.has_value());
  EXPECT_EQ(hop.scope->user_id, "user-1");
  EXPECT_EQ(hop.scope->tenant_id, "tenant-1");
}

// A hop as Whizbang .NET persists it (long "Scope" key, metadata of any JSON type, 7-digit
// fractions, no "st"), written by hand from the documented format.
TEST(EnvelopeJsonTests, DotNetHop_EveryFieldDecodes) {
  const std::string stream = MessageId::mint().to_string();
  const std::string correlation = MessageId::mint().to_string();
  const std::string json =
      "{\"v\":1,\"dc\":{\"m\":2,\"s\":0,\"d\":false},\"id\":\"" + MessageId::mint().to_string() +
      "\",\"t\":\"store_test::AuditEvent\",\"p\":{\"action\":\"x\"},\"h\":[{\"co\":\"" +
      correlation +
      "\",\"si\":{\"sn\":\"OrderService\",\"ii\":\"3f2504e0-4f89-11d3-9a0c-0305e82c3301\","
      "\"hn\":\"host-1\",\"pi\":4242},\"ts\":\"2026-03-09T17:30:01.6932490+00:00\","
      "\"to\":\"myapp.orders.events\",\"sc\":{\"v\":{\"Scope\":{\"t\":\"tenant-1\",\"u\":\"user-"
      "1\"}}},"
      "\"md\":{\"AggregateId\":\"" +
      stream +
      "\",\"auto:ProcessId\":4242},\"cm\":\"PlaceOrderAsync\",\"cl\":42,"
      "\"du\":\"1.02:03:04.5000000\",\"tp\":\"00-8fe2f60995fa4b5b2a2792f08b1ad39f-a8e13f9311145b78-"
      "01\"}]}";
  absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const MessageHop& hop = envelope->hops.at(0);
  EXPECT_EQ(hop.service_instance.service_name, "OrderService");
  EXPECT_EQ(hop.service_instance.process_id, 4242);
  EXPECT_EQ(hop.correlation_id->to_string(), correlation);
  EXPECT_EQ(hop.topic, "myapp.orders.events");
  EXPECT_EQ(hop.timestamp, TimePoint(std::chrono::microseconds(1'773'077'401'693'249)));
  ASSERT_TRUE(hop.stream_id.has_value());
  EXPECT_EQ(hop.stream_id->to_string(), stream);
  ASSERT_TRUE(hop.scope.has_value());
  EXPECT_EQ(hop.scope->tenant_id, "tenant-1");
  EXPECT_EQ(hop.scope->user_id, "user-1");
  EXPECT_EQ(hop.metadata.count("AggregateId"), 0u) << "the stream id, not metadata";
  EXPECT_EQ(hop.metadata.at("auto:ProcessId"), "4242");
  EXPECT_EQ(hop.trace_parent, "00-8fe2f60995fa4b5b2a2792f08b1ad39f-a8e13f9311145b78-01");
  EXPECT_EQ(hop.duration,
            std::chrono::microseconds(((26LL * 3600 + 3 * 60 + 4) * 1'000'000) + 500'000));
}

TEST(EnvelopeJsonTests, DotNetLongHopNames_AndAFreeFormStreamKey_Read) {
  const std::string json =
      "{\"v\":1,\"id\":\"" + MessageId::mint().to_string() +
      "\",\"t\":\"store_test::AuditEvent\",\"p\":{\"action\":\"x\"},\"h\":[{\"ServiceInstance\":"
      "{\"ServiceName\":\"Legacy\",\"InstanceId\":\"3f2504e0-4f89-11d3-9a0c-0305e82c3301\","
      "\"HostName\":\"h\",\"ProcessId\":7},\"Timestamp\":\"2025-01-01T00:00:00Z\","
      "\"Topic\":\"legacy\",\"StreamId\":\"order-123\"}]}";
  absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  const MessageHop& hop = envelope->hops.at(0);
  EXPECT_EQ(hop.service_instance.service_name, "Legacy");
  EXPECT_EQ(hop.topic, "legacy");
  EXPECT_FALSE(hop.stream_id.has_value()) << "a free-form stream key is not a stream id";
  EXPECT_EQ(hop.timestamp, TimePoint(std::chrono::seconds(1'735'689'600)));
}

TEST(EnvelopeJsonTests, ShortAndLongHopNameBothThere_TheShortOneWinsWhereverItStands) {
  // The long name first: one pass over the members must still prefer the short name after it.
  const std::string json =
      "{\"v\":1,\"id\":\"" + MessageId::mint().to_string() +
      "\",\"t\":\"store_test::AuditEvent\",\"p\":{\"action\":\"x\"},\"h\":[{\"si\":"
      "{\"sn\":\"s\",\"ii\":\"3f2504e0-4f89-11d3-9a0c-0305e82c3301\",\"hn\":\"h\",\"pi\":7},"
      "\"ts\":\"2025-01-01T00:00:00Z\",\"Topic\":\"long\",\"to\":\"short\"}]}";
  absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  EXPECT_EQ(envelope->hops.at(0).topic, "short");
}

// A reader finds an object's members through a small hash of their names; an object with more
// members than it indexes (a sender's own additions) is read all the same, and so are names
// that share a slot.
TEST(EnvelopeJsonTests, HopWithManyMembersItDoesNotKnow_ReadsLikeAnyOther) {
  for (const int unknown : {0, 5, 40}) {
    std::string members;
    for (int i = 0; i < unknown; ++i) members += "\"x" + std::to_string(i) + "\":0,";
    const std::string json =
        "{\"v\":1,\"id\":\"" + MessageId::mint().to_string() +
        "\",\"t\":\"store_test::AuditEvent\",\"p\":{\"action\":\"x\"},\"h\":[{" + members +
        "\"si\":{\"sn\":\"s\",\"ii\":\"3f2504e0-4f89-11d3-9a0c-0305e82c3301\",\"hn\":\"h\",\"pi\":"
        "7},"
        "\"ts\":\"2025-01-01T00:00:00Z\",\"Topic\":\"long\",\"to\":\"short\"}]}";
    absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve);
    ASSERT_TRUE(envelope.ok()) << envelope.status() << json;
    EXPECT_EQ(envelope->hops.at(0).topic, "short") << unknown;
    EXPECT_EQ(envelope->hops.at(0).service_instance.process_id, 7) << unknown;
    EXPECT_EQ(envelope->hops.at(0).timestamp, TimePoint(std::chrono::seconds(1'735'689'600)));
  }
}

// Every object's members in the reverse of the writer's order (the payload's and the records'
// apart: a record out of order is kept as received, by design).
void reverse_members(rapidjson::Value& value, rapidjson::Document::AllocatorType& allocator) {
  if (value.IsArray()) {
    for (rapidjson::Value& item : value.GetArray()) reverse_members(item, allocator);
    return;
  }
  if (!value.IsObject()) return;
  rapidjson::Value reversed(rapidjson::kObjectType);
  for (auto it = value.MemberEnd(); it != value.MemberBegin();) {
    --it;
    const std::string_view name(it->name.GetString(), it->name.GetStringLength());
    if (name != "p" && name != "rin") reverse_members(it->value, allocator);
    reversed.AddMember(it->name, it->value, allocator);
  }
  value = reversed;
}

// The reader looks members up in the writer's order first (docs/guide/18-tracing.md, "Members
// in the writer's order"); another sender's order must read the same.
TEST(EnvelopeJsonTests, MembersInAnotherOrder_ReadTheSame) {
  const std::string json = serialize_envelope(full_envelope());
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  reverse_members(document, document.GetAllocator());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  document.Accept(writer);
  const std::string reversed(buffer.GetString(), buffer.GetSize());
  ASSERT_NE(reversed, json);
  ASSERT_EQ(reversed.rfind("{\"ss\":", 0), 0u) << reversed;

  absl::StatusOr<Envelope> back = deserialize_envelope(reversed, resolve);
  ASSERT_TRUE(back.ok()) << back.status() << reversed;
  EXPECT_EQ(serialize_envelope(*back), json);
}

TEST(EnvelopeJsonTests, BadHopTime_IsInvalidArgumentNamingTheMember) {
  Envelope envelope = Envelope::create(AnyMessage::make(OrderCreated{"o", 1}), instance("orders"));
  std::string json = serialize_envelope(envelope);
  const std::size_t at = json.find("\"ts\":\"");
  json.replace(at, json.find('"', at + 6) - at + 1, "\"ts\":\"yesterday\"");
  absl::StatusOr<Envelope> back = deserialize_envelope(json, resolve);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find(".ts"), std::string::npos) << back.status();
  EXPECT_NE(back.status().message().find("ISO-8601"), std::string::npos) << back.status();
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
