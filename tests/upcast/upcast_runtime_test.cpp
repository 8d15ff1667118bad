// UpcastRuntimeTests: where the payload version travels (hop metadata "whizbang.v") and what a
// version with no upcaster path does on each read path: a clear error and a dead letter, never a
// silent drop.
#include <gtest/gtest.h>

#include <string>

#include <whizbang/message/envelope_json.hpp>
#include <whizbang/message/payload_version.hpp>

#include "support/temp_dir.hpp"
#include "v3_service.hpp"

namespace fixture {
namespace {

const whizbang::Registry& registry() { return v3_registry(); }

absl::StatusOr<whizbang::Envelope> decode(const std::string& json) {
  return whizbang::deserialize_envelope(
      json, [](std::string_view name) { return registry().find_message(name); });
}

whizbang::Envelope v3_envelope(const whizbang::Uuid& stream) {
  OrderPlaced placed;
  placed.order_id = "o-9";
  placed.total = {500, "USD"};
  placed.channel = "app";
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(placed), whizbang::ServiceInstance{});
  envelope.hops.front().stream_id = stream;
  return envelope;
}

// `json` with the payload version of its (first) hop set to `version`.
std::string claiming_version(std::string json, const std::string& version) {
  const std::string key = "\"whizbang.v\":\"";
  if (const std::size_t known = json.find(key); known != std::string::npos) {
    const std::size_t value = known + key.size();
    json.replace(value, json.find('"', value) - value, version);
    return json;
  }
  const std::size_t at = json.find("\"md\":{");
  EXPECT_NE(at, std::string::npos) << json;
  json.insert(at + 6, "\"whizbang.v\":\"" + version + "\",");
  return json;
}

TEST(UpcastRuntimeTests, Serialize_VersionedPayload_WritesItsVersionOnTheLastHop) {
  const whizbang::Envelope envelope = v3_envelope(whizbang::MessageId::mint().uuid());
  const std::string json = whizbang::serialize_envelope(envelope);
  EXPECT_NE(json.find("\"whizbang.v\":\"3\""), std::string::npos) << json;
  auto back = decode(json);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_NE(back->payload.get_if<OrderPlaced>(), nullptr);
  EXPECT_EQ(back->payload.get_if<OrderPlaced>()->channel, "app");
  // Decoded, it says so itself: serializing again gives the same bytes.
  EXPECT_EQ(whizbang::serialize_envelope(*back), json);
}

TEST(UpcastRuntimeTests, Serialize_UnversionedPayload_WritesNoVersion) {
  whizbang::Envelope envelope = whizbang::Envelope::create(
      whizbang::AnyMessage::make(OrderNoted{{}, "o-1"}), whizbang::ServiceInstance{});
  envelope.hops.front().stream_id = whizbang::MessageId::mint().uuid();
  const std::string json = whizbang::serialize_envelope(envelope);
  EXPECT_EQ(json.find("whizbang.v"), std::string::npos) << json;
}

TEST(UpcastRuntimeTests, DecodedOlderPayload_ReserializedSaysTheCurrentVersion) {
  const std::string v3 =
      whizbang::serialize_envelope(v3_envelope(whizbang::MessageId::mint().uuid()));
  // The same envelope as a v1 producer writes it: v1 payload, no version in its hop.
  std::string v1 = v3;
  v1.replace(v1.find("\"whizbang.v\":\"3\""), 16, "\"k\":\"v\"");
  v1.replace(v1.find("\"p\":{"), v1.find("},\"h\"") - v1.find("\"p\":{") + 1,
             "\"p\":{\"order_id\":\"o-9\",\"price\":700}");
  auto upcast = decode(v1);
  ASSERT_TRUE(upcast.ok()) << upcast.status() << "\n" << v1;
  const OrderPlaced* placed = upcast->payload.get_if<OrderPlaced>();
  ASSERT_NE(placed, nullptr);
  EXPECT_EQ(placed->total.cents, 700);
  EXPECT_EQ(placed->channel, "legacy");
  const std::string again = whizbang::serialize_envelope(*upcast);
  EXPECT_NE(again.find("\"whizbang.v\":\"3\""), std::string::npos) << again;
  EXPECT_NE(again.find("\"channel\":\"legacy\""), std::string::npos) << again;
  auto twice = decode(again);
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(twice->payload.get_if<OrderPlaced>()->channel, "legacy");
  EXPECT_EQ(twice->message_id, upcast->message_id);
}

TEST(UpcastRuntimeTests, PayloadVersion_TheLastHopWithTheKeyWins_AbsentIsOne) {
  std::vector<whizbang::MessageHop> hops(3);
  EXPECT_EQ(*whizbang::payload_version(hops), 1u);
  hops[0].metadata["whizbang.v"] = "1";
  hops[1].metadata["whizbang.v"] = "2";
  EXPECT_EQ(*whizbang::payload_version(hops), 2u);
  hops[2].metadata["whizbang.v"] = "x";
  EXPECT_EQ(whizbang::payload_version(hops).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(whizbang::parse_payload_version("0").ok());
}

TEST(UpcastRuntimeTests, EnvelopeClaimingVersion9_IsAnErrorNamingTypeVersionAndKnownOnes) {
  whizbang::Envelope noted_envelope = whizbang::Envelope::create(
      whizbang::AnyMessage::make(OrderNoted{{}, "o-1"}), whizbang::ServiceInstance{});
  noted_envelope.hops.front().stream_id = whizbang::MessageId::mint().uuid();  // gives it "md"
  const std::string json = claiming_version(whizbang::serialize_envelope(noted_envelope), "9");
  const std::string placed = claiming_version(
      whizbang::serialize_envelope(v3_envelope(whizbang::MessageId::mint().uuid())), "9");
  auto decoded = decode(placed);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(decoded.status().message());
  EXPECT_NE(message.find("fixture.OrderPlaced payload of version 9"), std::string::npos) << message;
  EXPECT_NE(message.find("reads versions 1, 2, 3 (current 3)"), std::string::npos) << message;
  // An unversioned type knows version 1 only.
  auto noted = decode(json);
  ASSERT_FALSE(noted.ok());
  EXPECT_NE(std::string(noted.status().message()).find("reads version 1 (current 1)"),
            std::string::npos)
      << noted.status();
}

// The inbox of a v3 service receives an envelope whose producer claims version 9 (newer code):
// dead-lettered with the reason, never handled, never dropped silently.
TEST(UpcastRuntimeTests, DeliveredEnvelopeClaimingVersion9_InboxDeadLettersItWithTheReason) {
  whizbang_test::TempDir dir;
  V3Service service(dir.file("store.db"));
  const std::string json = claiming_version(v1_envelopes().at(0), "9");
  rapidjson::Document document;
  document.Parse(json.c_str());
  auto id = whizbang::Uuid::parse(document["id"].GetString());
  ASSERT_TRUE(id.ok());
  service.deliver(json, whizbang::MessageId::from_trusted(*id));
  service.run(3);
  EXPECT_TRUE(service.seen.placed().empty());
  auto dead = service.store->dead_letters(10);
  ASSERT_TRUE(dead.ok()) << dead.status();
  // The inbox row, and the perspective work of the event the inbox stored on receipt: each
  // dead-lettered with the reason.
  ASSERT_EQ(dead->size(), 2u);
  bool inbox = false;
  for (const whizbang::DeadLetter& letter : *dead) {
    inbox = inbox || letter.source == whizbang::DeadLetterSource::Inbox;
    EXPECT_NE(letter.error.find("fixture.OrderPlaced payload of version 9: this build of "
                                "fixture::OrderPlaced reads versions 1, 2, 3 (current 3)"),
              std::string::npos)
        << letter.error;
  }
  EXPECT_TRUE(inbox);
}

// A stored event claiming version 9 (appended by newer code sharing the store): the perspective
// worker dead-letters its perspective work with the reason.
TEST(UpcastRuntimeTests, StoredEventClaimingVersion9_PerspectiveWorkerDeadLettersIt) {
  whizbang_test::TempDir dir;
  V3Service service(dir.file("store.db"));
  const whizbang::Envelope envelope = v3_envelope(whizbang::MessageId::mint().uuid());
  whizbang::OutboxMessage row;
  row.message_id = envelope.message_id;
  row.message_type = "fixture.OrderPlaced";
  row.envelope_json = claiming_version(whizbang::serialize_envelope(envelope), "9");
  row.stream_id = envelope.stream_id();
  row.is_event = true;
  whizbang::WorkBatchRequest request;
  request.new_outbox.push_back(row);
  ASSERT_TRUE(service.store->process_work_batch(request).ok());

  service.run(3);
  auto dead = service.store->dead_letters(10);
  ASSERT_TRUE(dead.ok()) << dead.status();
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ(dead->front().target, "fixture::OrderTotalsPerspective");
  EXPECT_NE(dead->front().error.find("fixture.OrderPlaced payload of version 9"), std::string::npos)
      << dead->front().error;
  auto model =
      service.store->load_perspective_model("fixture::OrderTotalsPerspective", *row.stream_id);
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(model->has_value());
}

}  // namespace
}  // namespace fixture
