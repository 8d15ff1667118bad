// The AMQP properties and headers as Whizbang .NET writes and reads them
// (docs/guide/13-rabbitmq.md, "On the wire"): the publish timestamp in whole unix seconds, string
// headers (StreamId, EnvelopeType, CausationId) as AMQP long strings ('S', which .NET's client
// hands its consumer as byte[]; a byte array 'x' reaches it as another type), and a .NET claim
// check (its body a claim on an offloaded body, not an envelope) dead-lettered with its reason,
// never decoded.
#include <gtest/gtest.h>
#include <whizbang/transport/rabbitmq/rabbitmq_topology.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "received.hpp"
#include "support/log_capture.hpp"
#include "support/rabbitmq_broker.hpp"
#include "transport/rabbitmq/amqp_connection.hpp"
#include "transport/rabbitmq/amqp_message.hpp"

namespace whizbang::test {
namespace {

using rabbitmq::bytes_of;
using rabbitmq::OutgoingProperties;
using std::chrono::seconds;

constexpr char kEnvelopeType[] =
    "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Contracts.ShipOrder, Shop.Contracts]], "
    "Whizbang.Core";

// 2026-03-09T17:30:01.9Z.
const std::chrono::system_clock::time_point kPublishedAt =
    std::chrono::system_clock::time_point(std::chrono::milliseconds(1773077401900));

const amqp_table_entry_t* find_header(const amqp_basic_properties_t& properties,
                                      std::string_view name) {
  for (int i = 0; i < properties.headers.num_entries; ++i) {
    const amqp_table_entry_t& entry = properties.headers.entries[i];
    if (rabbitmq::view_of(entry.key) == name) return &entry;
  }
  return nullptr;
}

// The properties as they go on the wire (the content header's property list).
std::string encoded(const OutgoingProperties& outgoing) {
  std::vector<char> buffer(4096);
  const int size = amqp_encode_properties(
      AMQP_BASIC_CLASS, const_cast<amqp_basic_properties_t*>(outgoing.properties()),
      amqp_bytes_t{buffer.size(), buffer.data()});
  EXPECT_GT(size, 0);
  return {buffer.data(), static_cast<std::size_t>(std::max(size, 0))};
}

// A table entry as AMQP encodes a long-string value: key (short string), 'S', length, bytes.
std::string long_string_entry(std::string_view key, std::string_view value) {
  std::string entry;
  entry.push_back(static_cast<char>(key.size()));
  entry.append(key);
  entry.push_back('S');
  for (int shift = 24; shift >= 0; shift -= 8) {
    entry.push_back(static_cast<char>((value.size() >> shift) & 0xff));
  }
  entry.append(value);
  return entry;
}

TransportMessage shipment(std::optional<Uuid> stream) {
  TransportMessage message = test_message("Shop.Contracts.ShipOrder", false, stream);
  message.dotnet_type = "Shop.Contracts.ShipOrder, Shop.Contracts";
  message.correlation_id = MessageId::mint();
  message.causation_id = MessageId::mint();
  return message;
}

TEST(DotNetWireTests, Timestamp_IsThePublishTimeInWholeUnixSeconds) {
  const TransportMessage message = shipment(std::nullopt);
  const OutgoingProperties outgoing({"shop.contracts", "x", {}}, message, kPublishedAt);
  const amqp_basic_properties_t& properties = *outgoing.properties();
  ASSERT_NE(properties._flags & AMQP_BASIC_TIMESTAMP_FLAG, 0u);
  EXPECT_EQ(properties.timestamp, 1773077401u) << "seconds, the fraction dropped";
  // On the wire: eight bytes, big-endian, where AMQP's timestamp property goes.
  const std::string wire = encoded(outgoing);
  const std::string seconds_be("\x00\x00\x00\x00\x69\xaf\x03\x99", 8);
  EXPECT_NE(wire.find(seconds_be), std::string::npos);
}

TEST(DotNetWireTests, StreamIdAndTheOtherStringHeaders_AreLongStrings_AsDotNetWritesThem) {
  const Uuid stream = MessageId::mint().uuid();
  const TransportMessage message = shipment(stream);
  const OutgoingProperties outgoing({"inbox.shop.contracts", "shop.contracts.shiporder", {}},
                                    message, kPublishedAt);
  const amqp_basic_properties_t& properties = *outgoing.properties();
  for (const char* name : {"StreamId", "EnvelopeType", "CausationId"}) {
    const amqp_table_entry_t* entry = find_header(properties, name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(entry->value.kind, AMQP_FIELD_KIND_UTF8) << name << ": 'S', not a byte array 'x'";
  }
  // .NET writes the stream as Guid.ToString(): lowercase 8-4-4-4-12, a long string.
  const std::string wire = encoded(outgoing);
  EXPECT_NE(wire.find(long_string_entry("StreamId", stream.to_string())), std::string::npos);
  EXPECT_NE(wire.find(long_string_entry("EnvelopeType", kEnvelopeType)), std::string::npos);
  EXPECT_NE(wire.find(long_string_entry("CausationId", message.causation_id->to_string())),
            std::string::npos);
  ASSERT_NE(properties._flags & AMQP_BASIC_CORRELATION_ID_FLAG, 0u);
  EXPECT_EQ(rabbitmq::view_of(properties.correlation_id), message.correlation_id->to_string());
}

// A delivery as the consumer gets it, with the headers given.
struct Delivery {
  std::string body = R"({"v":1,"id":"0195a8f0-1111-7000-8000-000000000002","p":{},"h":[]})";
  std::string message_id = "0195a8f0-1111-7000-8000-000000000002";
  std::vector<amqp_table_entry_t> headers;
  amqp_envelope_t envelope{};

  Delivery() { add_text("EnvelopeType", kEnvelopeType); }
  void add_text(const char* key, const char* value) {
    amqp_table_entry_t entry{};
    entry.key = amqp_cstring_bytes(key);
    entry.value.kind = AMQP_FIELD_KIND_UTF8;
    entry.value.value.bytes = amqp_cstring_bytes(value);
    headers.push_back(entry);
  }
  void add_bool(const char* key, bool value) {
    amqp_table_entry_t entry{};
    entry.key = amqp_cstring_bytes(key);
    entry.value.kind = AMQP_FIELD_KIND_BOOLEAN;
    entry.value.value.boolean = value ? 1 : 0;
    headers.push_back(entry);
  }
  const amqp_envelope_t& get() {
    envelope.exchange = amqp_cstring_bytes("inbox.shop.contracts");
    envelope.routing_key = amqp_cstring_bytes("shop.contracts.shiporder");
    envelope.message.body = bytes_of(body);
    amqp_basic_properties_t& properties = envelope.message.properties;
    properties._flags = AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_HEADERS_FLAG;
    properties.message_id = bytes_of(message_id);
    properties.headers = amqp_table_t{static_cast<int>(headers.size()), headers.data()};
    return envelope;
  }
};

TEST(DotNetWireTests, ClaimCheckDelivery_IsRefusedNamingTheStoreAndType_NotDecoded) {
  Delivery delivery;
  delivery.add_bool("whizbang.is-claim", true);
  delivery.add_text("whizbang.body-store", "azure-blob");
  delivery.add_text("whizbang.original-type", kEnvelopeType);
  absl::StatusOr<rabbitmq::IncomingMessage> incoming =
      rabbitmq::decode_delivery(delivery.get(), "inbox");
  ASSERT_FALSE(incoming.ok());
  EXPECT_EQ(incoming.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string reason(incoming.status().message());
  EXPECT_NE(reason.find("claim check"), std::string::npos) << reason;
  EXPECT_NE(reason.find("'azure-blob'"), std::string::npos) << reason;
  EXPECT_NE(reason.find("Shop.Contracts.ShipOrder"), std::string::npos) << reason;
  EXPECT_NE(reason.find(delivery.message_id), std::string::npos) << reason;
}

TEST(DotNetWireTests, ClaimFlagAsText_IsAClaimToo_AFalseOneIsNot) {
  Delivery text;
  text.add_text("whizbang.is-claim", "True");
  EXPECT_EQ(rabbitmq::decode_delivery(text.get(), "inbox").status().code(),
            absl::StatusCode::kFailedPrecondition);
  Delivery no;
  no.add_bool("whizbang.is-claim", false);
  absl::StatusOr<rabbitmq::IncomingMessage> plain = rabbitmq::decode_delivery(no.get(), "inbox");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->message.message_type, "Shop.Contracts.ShipOrder, Shop.Contracts");
}

class DotNetWireBrokerTests : public ::testing::Test {
 protected:
  DotNetWireBrokerTests() {
    options_ = test_rabbitmq_options();
    options_.inbox_exchange = unique_name("inbox");
    options_.logger = log_.logger;
  }

  whizbang_test::LogCapture log_;
  RabbitMqOptions options_;
  std::string events_ = unique_name("shop.contracts");
};

TEST_F(DotNetWireBrokerTests, Published_TimestampAndStreamId_ArriveAsDotNetWritesThem) {
  RabbitMqTransport transport(options_);
  RawAmqp raw(options_);
  const std::string queue = unique_name("DotNetService") + "-" + events_;
  ASSERT_TRUE(raw.declare_bound_queue(queue, events_, "#"));
  const Uuid stream = MessageId::mint().uuid();
  const TransportMessage sent = shipment(stream);
  const auto before =
      std::chrono::duration_cast<seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  ASSERT_TRUE(transport.publish({events_, "shop.contracts.orderplaced", {}}, {&sent, 1}).ok());
  const auto after =
      std::chrono::duration_cast<seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::optional<RawMessage> got = raw.get(queue);
  ASSERT_TRUE(got.has_value());
  ASSERT_TRUE(got->timestamp.has_value());
  EXPECT_GE(static_cast<std::int64_t>(*got->timestamp), before);
  EXPECT_LE(static_cast<std::int64_t>(*got->timestamp), after);
  EXPECT_EQ(got->headers["StreamId"], stream.to_string());
  EXPECT_EQ(got->header_kinds["StreamId"], 'S');
  EXPECT_EQ(got->header_kinds["EnvelopeType"], 'S');
  EXPECT_EQ(got->header_kinds["CausationId"], 'S');
  EXPECT_EQ(got->properties["correlation_id"], sent.correlation_id->to_string());
}

TEST_F(DotNetWireBrokerTests, ClaimCheckDelivery_ToTheDeadLetterQueueWithItsReason_NextOneHandled) {
  RabbitMqTransport transport(options_);
  Received received;
  const std::string service = unique_name("shipping");
  auto subscription = transport.subscribe(service, {{events_, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();

  // As a .NET producer that offloaded the body publishes it: the claim envelope as the body,
  // EnvelopeType still naming the original type, the flag an AMQP boolean.
  const MessageId claim_id = MessageId::mint();
  const std::string claim_body =
      R"({"v":1,"id":")" + claim_id.to_string() +
      R"(","p":{"Claim":{"ProviderName":"azure-blob","Key":"bodies/)" + claim_id.to_string() +
      R"(","Sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},)"
      R"("OriginalContentType":"application/json","OriginalTypeName":"Shop.Contracts.ShipOrder, Shop.Contracts"},"h":[]})";
  amqp_table_entry_t is_claim{};
  is_claim.key = amqp_cstring_bytes("whizbang.is-claim");
  is_claim.value.kind = AMQP_FIELD_KIND_BOOLEAN;
  is_claim.value.value.boolean = 1;
  RawAmqp raw(options_);
  ASSERT_TRUE(
      raw.publish(events_, "shop.contracts.orderplaced", claim_body,
                  {{"content_type", "application/json"}, {"message_id", claim_id.to_string()}},
                  {{"EnvelopeType", kEnvelopeType},
                   {"whizbang.body-store", "azure-blob"},
                   {"whizbang.original-type", kEnvelopeType}},
                  {is_claim}));
  const TransportMessage good = shipment(std::nullopt);
  ASSERT_TRUE(transport.publish({events_, "shop.contracts.orderplaced", {}}, {&good, 1}).ok());

  ASSERT_TRUE(received.wait_for(1));
  std::optional<RawMessage> dead =
      raw.consume_one(rabbitmq_queue_name(service, events_) + ".dlq", seconds(20));
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->body, claim_body) << "kept byte for byte";
  EXPECT_EQ(dead->properties["message_id"], claim_id.to_string());
  EXPECT_EQ(dead->header_kinds["whizbang.is-claim"], 't');
  EXPECT_EQ(dead->headers["whizbang.body-store"], "azure-blob");
  EXPECT_EQ(log_.count("[EventId 152 TransportDeliveryRejected]"), 1);
  EXPECT_EQ(log_.count("is a claim check (whizbang.is-claim)"), 1);
  EXPECT_EQ(log_.count("'azure-blob'"), 1);
  // Only the message behind it reached the handler; the claim never did.
  const std::vector<TransportMessage> messages = received.messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].message_id, good.message_id);
}

}  // namespace
}  // namespace whizbang::test
