// The envelope members Whizbang .NET added after the first ones (docs/guide/15-dotnet-services.md,
// "What each side ignores"): receptor invocation records under "rin", the source and caused-by
// service and commit sequence ("sid", "sseq", "cbid", "cbseq"), the directed target ("tgt"), the
// state-only flag ("sto") and the priority ("pri"). An envelope a .NET service wrote is decoded
// with them, written back with them as they came (stored or forwarded here), and an envelope
// this library creates has none. The golden envelope below is written by hand from .NET's
// MessageEnvelope, not produced by this library's encoder.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <whizbang/message/envelope_json.hpp>

#include <string>

#include "interop_messages.hpp"
#include "interop_registry.hpp"
#include "support/dotnet_reader_rules.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace dotnet_newer_members {  // named: the unity build compiles the interop files together
namespace {

using std::chrono::microseconds;

constexpr char kType[] = "Shop.Contracts.ShipOrder, Shop.Contracts";

// MessageEnvelope<JsonElement> as .NET's serializer writes it (declaration order, nulls
// omitted): two receptor records (the first with a 100 ns tick in both times, which this
// library's clocks do not keep), the members added since, and one no version of either side
// knows yet.
constexpr char kDotNetEnvelope[] = R"({
  "v": 1,
  "dc": {"m": 2, "s": 1, "d": false},
  "id": "0195a8f0-1111-7000-8000-000000000002",
  "p": {"OrderId": "0195a8f0-0000-7000-8000-000000000001",
        "ShipBy": "2026-03-10T09:00:00+00:00"},
  "h": [{"si": {"sn": "Shop.OrderService", "ii": "019cd3a0-3997-776c-b616-20bbc224dcd9",
                "hn": "web-1", "pi": 4242},
         "ts": "2026-03-09T17:30:01.693249+00:00",
         "co": "0195a8f0-1111-7000-8000-000000000002"}],
  "rin": [{"r": "Shop.Shipping.ShipOrderReceptor", "s": 14,
           "at": "2026-03-09T17:30:01.6932491+00:00", "du": "00:00:00.0123457",
           "sn": "Shop.ShippingService"},
          {"r": "Shop.Shipping.AuditReceptor", "s": 15,
           "at": "2026-03-09T17:30:01.7+00:00", "du": "00:00:00.0015000",
           "sn": "Shop.ShippingService"}],
  "sid": "0195a8f0-5555-7000-8000-00000000000a",
  "sseq": 4711,
  "cbid": "0195a8f0-6666-7000-8000-00000000000b",
  "cbseq": 4700,
  "tgt": "Shop.ShippingService",
  "sto": true,
  "pri": 250,
  "zz": {"future": [1, 2]}
})";

constexpr const char* kNewerMembers[] = {"rin",   "sid", "sseq", "cbid",
                                         "cbseq", "tgt", "sto",  "pri"};

whizbang::Envelope decode(std::string_view json) {
  absl::StatusOr<whizbang::Envelope> envelope =
      whizbang::deserialize_envelope(json, resolve, kType);
  EXPECT_TRUE(envelope.ok()) << envelope.status();
  return envelope.ok() ? *std::move(envelope) : whizbang::Envelope{};
}

rapidjson::Document parse(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  EXPECT_FALSE(document.HasParseError()) << json;
  return document;
}

std::string text_of(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

whizbang::Envelope cpp_envelope() {
  ShipOrder command;
  command.order_id = whizbang::MessageId::mint().uuid();
  return whizbang::Envelope::create(whizbang::AnyMessage::make(command),
                                    {"shipping", whizbang::MessageId::mint().uuid(), "host", 7});
}

TEST(DotNetNewerMembersTests, GoldenDotNetEnvelope_EachNewerMemberIsDecoded) {
  const whizbang::Envelope envelope = decode(kDotNetEnvelope);
  const whizbang::DotNetEnvelopeMembers& dotnet = envelope.dotnet;
  ASSERT_TRUE(dotnet.source_service_id.has_value());
  EXPECT_EQ(dotnet.source_service_id->to_string(), "0195a8f0-5555-7000-8000-00000000000a");
  EXPECT_EQ(dotnet.source_commit_sequence, 4711);
  ASSERT_TRUE(dotnet.caused_by_service_id.has_value());
  EXPECT_EQ(dotnet.caused_by_service_id->to_string(), "0195a8f0-6666-7000-8000-00000000000b");
  EXPECT_EQ(dotnet.caused_by_commit_sequence, 4700);
  EXPECT_EQ(dotnet.target, "Shop.ShippingService");
  EXPECT_EQ(dotnet.state_only, true);
  EXPECT_EQ(dotnet.priority, 250);
  // "sid" is the sending service's id, which this library keeps as source_service_id.
  EXPECT_EQ(envelope.source_service_id, *dotnet.source_service_id);

  ASSERT_EQ(envelope.receptor_invocations.size(), 2u);
  const whizbang::ReceptorInvocationRecord& first = envelope.receptor_invocations[0];
  EXPECT_EQ(first.receptor_id.view(), "Shop.Shipping.ShipOrderReceptor");
  EXPECT_EQ(first.stage, whizbang::Stage::PostInboxDetached);
  EXPECT_EQ(first.service_name, "Shop.ShippingService");
  EXPECT_EQ(whizbang::to_unix_micros(first.completed_at), 1773077401693249);
  EXPECT_EQ(first.duration, microseconds(12345));
  const whizbang::ReceptorInvocationRecord& second = envelope.receptor_invocations[1];
  EXPECT_EQ(second.stage, whizbang::Stage::PostInboxInline);
  EXPECT_EQ(whizbang::to_unix_micros(second.completed_at), 1773077401700000);
  EXPECT_EQ(second.duration, microseconds(1500));
}

TEST(DotNetNewerMembersTests, GoldenDotNetEnvelope_RoundTrip_KeepsEachNewerMemberAsItCame) {
  const std::string written = whizbang::serialize_envelope(decode(kDotNetEnvelope));
  const rapidjson::Document original = parse(kDotNetEnvelope);
  const rapidjson::Document again = parse(written);
  for (const char* name : kNewerMembers) {
    ASSERT_TRUE(again.HasMember(name)) << name << " dropped: " << written;
    EXPECT_TRUE(again[name] == original[name])
        << name << ": " << text_of(again[name]) << " != " << text_of(original[name]);
  }
  // Read and written a second time: the same bytes (the first record verbatim, ticks and all).
  EXPECT_EQ(whizbang::serialize_envelope(decode(written)), written);
}

TEST(DotNetNewerMembersTests, ForwardedDotNetEnvelope_KeepsItsRecords_AndAppendsOursInDotNetShape) {
  whizbang::Envelope envelope = decode(kDotNetEnvelope);
  whizbang::ReceptorInvocationRecord ours;
  ours.receptor_id = std::string("shop::Mailer");
  ours.stage = whizbang::Stage::PostInboxDetached;
  ours.completed_at = whizbang::from_unix_micros(1773077402000001);
  ours.duration = microseconds(2500);
  envelope.receptor_invocations.push_back(ours);
  const std::string written = whizbang::serialize_envelope(envelope);
  const rapidjson::Document original = parse(kDotNetEnvelope);
  const rapidjson::Document again = parse(written);
  ASSERT_TRUE(again.HasMember("rin"));
  ASSERT_EQ(again["rin"].Size(), 3u);
  EXPECT_TRUE(again["rin"][0] == original["rin"][0]) << text_of(again["rin"][0]);
  EXPECT_TRUE(again["rin"][1] == original["rin"][1]) << text_of(again["rin"][1]);
  EXPECT_EQ(text_of(again["rin"][2]),
            R"({"r":"shop::Mailer","s":14,"at":"2026-03-09T17:30:02.000001+00:00",)"
            R"("du":"00:00:00.0025000","sn":""})")
      << "every member .NET requires, \"sn\" even when empty";
  EXPECT_EQ(whizbang::test::DotNetReaderRules::problems(written), std::vector<std::string>{});
}

TEST(DotNetNewerMembersTests, CppEnvelope_OmitsTheNewerMembers_AsDotNetOmitsDefaults) {
  const std::string written = whizbang::serialize_envelope(cpp_envelope());
  const rapidjson::Document document = parse(written);
  for (const char* name : kNewerMembers) {
    EXPECT_FALSE(document.HasMember(name)) << name << " in " << written;
  }
  EXPECT_FALSE(document.HasMember("ri")) << written;
}

TEST(DotNetNewerMembersTests, CppRecords_WrittenUnderRin_InTheShapeDotNetReads) {
  whizbang::Envelope envelope = cpp_envelope();
  whizbang::ReceptorInvocationRecord record;
  record.receptor_id = std::string("shop::Mailer");
  record.stage = whizbang::Stage::PostPerspectiveInline;
  record.completed_at = whizbang::from_unix_micros(1773077401693249);
  record.duration = microseconds(1234567);
  record.service_name = "shipping";
  record.perspective = "shop::OrderView";
  envelope.receptor_invocations.push_back(record);
  const std::string written = whizbang::serialize_envelope(envelope);
  const rapidjson::Document document = parse(written);
  ASSERT_TRUE(document.HasMember("rin")) << written;
  EXPECT_FALSE(document.HasMember("ri")) << written;
  EXPECT_EQ(text_of(document["rin"]),
            R"([{"r":"shop::Mailer","s":19,"at":"2026-03-09T17:30:01.693249+00:00",)"
            R"("du":"00:00:01.2345670","sn":"shipping","pe":"shop::OrderView"}])");
  EXPECT_EQ(whizbang::test::DotNetReaderRules::problems(written), std::vector<std::string>{});

  const whizbang::Envelope back = decode(written);
  ASSERT_EQ(back.receptor_invocations.size(), 1u);
  EXPECT_EQ(back.receptor_invocations[0], record);
  EXPECT_TRUE(back.receptor_invocations[0].received_json.empty())
      << "a record this library wrote is written anew, not kept as text";
  EXPECT_TRUE(back.dotnet.empty());
}

// A "rin" record is kept as its text exactly when writing it anew would change that text: each
// case differs from what the writer writes in one way only.
TEST(DotNetNewerMembersTests, RinRecord_KeptAsItsText_ExactlyWhenWritingItAnewWouldChangeIt) {
  const std::string plain = R"({"r":"shop::Mailer","s":19,"at":"2026-03-09T17:30:01.693249+00:00",)"
                            R"("du":"00:00:01.2345670","sn":"shipping"})";
  const std::string changed[] = {
      // members in another order
      R"({"s":19,"r":"shop::Mailer","at":"2026-03-09T17:30:01.693249+00:00",)"
      R"("du":"00:00:01.2345670","sn":"shipping"})",
      // another offset, the same instant
      R"({"r":"shop::Mailer","s":19,"at":"2026-03-09T18:30:01.693249+01:00",)"
      R"("du":"00:00:01.2345670","sn":"shipping"})",
      // an integer duration (this runtime's earlier form)
      R"({"r":"shop::Mailer","s":19,"at":"2026-03-09T17:30:01.693249+00:00",)"
      R"("du":1234567,"sn":"shipping"})",
      // an empty perspective, which the writer leaves out
      R"({"r":"shop::Mailer","s":19,"at":"2026-03-09T17:30:01.693249+00:00",)"
      R"("du":"00:00:01.2345670","sn":"shipping","pe":""})",
      // a member this runtime does not know
      R"({"r":"shop::Mailer","s":19,"at":"2026-03-09T17:30:01.693249+00:00",)"
      R"("du":"00:00:01.2345670","sn":"shipping","x":1})",
      // no "sn" (the writer writes it even when empty)
      R"({"r":"shop::Mailer","s":19,"at":"2026-03-09T17:30:01.693249+00:00",)"
      R"("du":"00:00:01.2345670"})",
  };
  auto with_record = [](const std::string& record) {
    std::string json = whizbang::serialize_envelope(cpp_envelope());
    json.insert(json.size() - 1, R"(,"rin":[)" + record + "]");
    return json;
  };
  const whizbang::Envelope same = decode(with_record(plain));
  ASSERT_EQ(same.receptor_invocations.size(), 1u);
  EXPECT_TRUE(same.receptor_invocations[0].received_json.empty());
  for (const std::string& record : changed) {
    const whizbang::Envelope back = decode(with_record(record));
    ASSERT_EQ(back.receptor_invocations.size(), 1u) << record;
    EXPECT_EQ(back.receptor_invocations[0].received_json, record);
    EXPECT_NE(whizbang::serialize_envelope(back).find(record), std::string::npos)
        << "written back as it came: " << record;
  }
}

TEST(DotNetNewerMembersTests, RecordsUnderRi_FromEarlierVersionsOfThisLibrary_AreStillRead) {
  const whizbang::Envelope envelope = cpp_envelope();
  std::string json = whizbang::serialize_envelope(envelope);
  json.insert(json.size() - 1,
              R"(,"ri":[{"r":"shop::Mailer","s":14,"at":1773077401693249,"du":1500,"sn":"x"}])");
  const whizbang::Envelope back = decode(json);
  ASSERT_EQ(back.receptor_invocations.size(), 1u);
  EXPECT_EQ(back.receptor_invocations[0].receptor_id.view(), "shop::Mailer");
  EXPECT_EQ(whizbang::to_unix_micros(back.receptor_invocations[0].completed_at), 1773077401693249);
  EXPECT_EQ(back.receptor_invocations[0].duration, microseconds(1500));
  // Written back where .NET reads them.
  EXPECT_NE(whizbang::serialize_envelope(back).find(R"("rin":[{"r":"shop::Mailer")"),
            std::string::npos);
}

TEST(DotNetNewerMembersTests, UnknownTopLevelMembers_DoNotFailDecoding) {
  std::string json = whizbang::serialize_envelope(cpp_envelope());
  json.insert(json.size() - 1,
              R"(,"zz":{"deep":[1,{"x":null}]},"Priority":"high","ri2":[],"sg2":7)");
  absl::StatusOr<whizbang::Envelope> envelope = whizbang::deserialize_envelope(json, resolve);
  ASSERT_TRUE(envelope.ok()) << envelope.status();
  EXPECT_TRUE(envelope->dotnet.empty());
}

TEST(DotNetNewerMembersTests, NullNewerMembers_ReadAsAbsent) {
  std::string json = whizbang::serialize_envelope(cpp_envelope());
  json.insert(json.size() - 1,
              R"(,"rin":null,"sid":null,"sseq":null,"cbid":null,"cbseq":null,"tgt":null,)"
              R"("sto":null,"pri":null)");
  const whizbang::Envelope envelope = decode(json);
  EXPECT_TRUE(envelope.dotnet.empty());
  EXPECT_TRUE(envelope.receptor_invocations.empty());
}

TEST(DotNetNewerMembersTests, NewerMemberOfTheWrongShape_IsAnErrorNamingIt) {
  const std::string base = whizbang::serialize_envelope(cpp_envelope());
  for (const auto& [member, path] :
       {std::pair{R"("sid":5)", "$.sid"}, std::pair{R"("sseq":"4711")", "$.sseq"},
        std::pair{R"("cbid":"not-a-uuid")", "$.cbid"}, std::pair{R"("cbseq":1.5)", "$.cbseq"},
        std::pair{R"("tgt":7)", "$.tgt"}, std::pair{R"("sto":"yes")", "$.sto"},
        std::pair{R"("pri":"high")", "$.pri"}, std::pair{R"("rin":{})", "$.rin"},
        std::pair{R"("rin":[{"r":"x","s":2,"at":"2026-03-09T17:30:01Z","du":"soon"}])",
                  "$.rin[0].du"}}) {
    std::string json = base;
    json.insert(json.size() - 1, std::string(",") + member);
    absl::StatusOr<whizbang::Envelope> envelope = whizbang::deserialize_envelope(json, resolve);
    ASSERT_FALSE(envelope.ok()) << member;
    EXPECT_EQ(envelope.status().code(), absl::StatusCode::kInvalidArgument) << member;
    EXPECT_NE(envelope.status().message().find(path), std::string_view::npos)
        << member << ": " << envelope.status();
  }
}

TEST(DotNetNewerMembersTests, OurSourceServiceId_WinsOverDotNetsSid) {
  whizbang::Envelope envelope = cpp_envelope();
  envelope.source_service_id = whizbang::MessageId::mint().uuid();
  envelope.dotnet.source_service_id = whizbang::MessageId::mint().uuid();
  const whizbang::Envelope back = decode(whizbang::serialize_envelope(envelope));
  EXPECT_EQ(back.source_service_id, envelope.source_service_id);
  EXPECT_EQ(back.dotnet.source_service_id, envelope.dotnet.source_service_id);
}

TEST(DotNetNewerMembersTests, RecordLimit_CountsRinAndRiTogether) {
  std::string json = whizbang::serialize_envelope(cpp_envelope());
  json.insert(json.size() - 1,
              R"(,"ri":[{"r":"a","s":2,"at":1,"du":1}],)"
              R"("rin":[{"r":"b","s":2,"at":"2026-03-09T17:30:01Z","du":"00:00:00","sn":""}])");
  whizbang::EnvelopeLimits limits;
  limits.max_receptor_invocations = 1;
  absl::StatusOr<whizbang::Envelope> envelope =
      whizbang::deserialize_envelope(json, resolve, {}, limits);
  ASSERT_FALSE(envelope.ok());
  EXPECT_NE(envelope.status().message().find("over the limit of 1"), std::string_view::npos)
      << envelope.status();
  limits.max_receptor_invocations = 2;
  EXPECT_TRUE(whizbang::deserialize_envelope(json, resolve, {}, limits).ok());
}

}  // namespace
}  // namespace dotnet_newer_members
}  // namespace interop_test
