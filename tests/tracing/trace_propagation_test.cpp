// `tp` on hops: written and read as Whizbang .NET does, kept through the envelope JSON, and the
// context a handling continues (the last hop with a valid one); the tracer's ids and sampling.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <whizbang/dispatch/message_tracing.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/observability/metrics.hpp>
#include <whizbang/observability/trace_names.hpp>
#include <whizbang/observability/tracer.hpp>
#include <whizbang/security/envelope_signing.hpp>

#include <regex>

#include "support/recording_span_sink.hpp"
#include "tracing_messages.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace tracing_test {
namespace {

constexpr char kDotNetTraceParent[] = "00-8fe2f60995fa4b5b2a2792f08b1ad39f-a8e13f9311145b78-01";

const whizbang::MessageTypeInfo* find(std::string_view name) {
  return whizbang::generated::whizbang_tracing_tests::registry().find_message(name);
}

whizbang::Envelope order_placed_envelope() {
  OrderPlaced placed;
  placed.order_id = "o-1";
  whizbang::ServiceInstance origin;
  origin.service_name = "Shop.OrderService";
  return whizbang::Envelope::create(whizbang::AnyMessage::make(placed), origin);
}

TEST(TraceParentHopTests, HopWithTp_RoundTripsThroughEnvelopeJson) {
  whizbang::Envelope envelope = order_placed_envelope();
  envelope.hops.front().trace_parent = kDotNetTraceParent;
  const std::string json = whizbang::serialize_envelope(envelope);
  rapidjson::Document document;
  document.Parse(json.c_str());
  ASSERT_TRUE(document.IsObject());
  EXPECT_STREQ(document["h"][0]["tp"].GetString(), kDotNetTraceParent) << json;
  auto back = whizbang::deserialize_envelope(json, find);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->hops.front().trace_parent, kDotNetTraceParent);
  EXPECT_EQ(whizbang::serialize_envelope(*back), json) << "re-encodes to the same bytes";
}

TEST(TraceParentHopTests, HopWithoutTp_WritesNoTpKey) {
  const std::string json = whizbang::serialize_envelope(order_placed_envelope());
  EXPECT_EQ(json.find("\"tp\""), std::string::npos) << json;
}

TEST(TraceParentHopTests, DotNetHopShape_TpIsRead_NonStringTpIsDropped) {
  // A hop as Whizbang .NET persists it (JSONB key order), with its traceparent.
  whizbang::Envelope envelope = order_placed_envelope();
  std::string json = whizbang::serialize_envelope(envelope);
  const std::string dotnet_hop =
      R"({"md":{"AggregateId":"019cd3a4-19dc-7548-aed6-e24ab97f8dc8"},)"
      R"("si":{"hn":"test-host","ii":"019cd3a0-3997-776c-b616-20bbc224dcd9","pi":56083,)"
      R"("sn":"JDX.JobService"},"to":"jdx.contracts.job","tp":")" +
      std::string(kDotNetTraceParent) + R"(","ts":"2026-03-09T17:30:01.693249+00:00"})";
  const std::size_t hops = json.find("\"h\":[");
  ASSERT_NE(hops, std::string::npos);
  json.insert(hops + 5, dotnet_hop + ",");
  auto read = whizbang::deserialize_envelope(json, find);
  ASSERT_TRUE(read.ok()) << read.status() << "\n" << json;
  ASSERT_EQ(read->hops.size(), 2u);
  EXPECT_EQ(read->hops.front().trace_parent, kDotNetTraceParent);

  std::string odd = json;
  odd.replace(odd.find("\"tp\":\""), std::string("\"tp\":\"").size() + 55 + 1, "\"tp\":42");
  auto dropped = whizbang::deserialize_envelope(odd, find);
  ASSERT_TRUE(dropped.ok()) << "a non-string tp never refuses a message: " << dropped.status();
  EXPECT_TRUE(dropped->hops.front().trace_parent.empty());
}

// The signature covers the exact bytes, hops and their `tp` included (docs/guide/16-security.md):
// a signed envelope with a traceparent verifies, and one whose traceparent was changed does not.
TEST(TraceParentHopTests, SignedEnvelope_TpIsCoveredBySignature) {
  whizbang::Envelope envelope = order_placed_envelope();
  envelope.hops.front().trace_parent = kDotNetTraceParent;
  whizbang::EnvelopeSigning signing;
  signing.mode = whizbang::EnvelopeSigningMode::Require;
  signing.keys = *whizbang::SigningKeyRing::create({{"k1", std::string(32, 'k')}});
  std::string json = whizbang::serialize_envelope(envelope);
  ASSERT_TRUE(whizbang::sign_envelope_json(json, signing.keys).ok());
  EXPECT_TRUE(whizbang::admit_envelope(json, signing).ok());
  std::string forged = json;
  forged.replace(forged.find("a8e13f9311145b78"), 16, "0000000000000001");
  EXPECT_FALSE(whizbang::admit_envelope(forged, signing).ok());
}

TEST(IncomingTraceTests, LastValidHopWins_InvalidLaterHopIsSkippedAndCounted) {
  whizbang::Envelope envelope = order_placed_envelope();
  envelope.hops.front().trace_parent = kDotNetTraceParent;
  whizbang::MessageHop later = envelope.hops.front();
  later.trace_parent = "00-not-a-traceparent";
  envelope.hops.push_back(later);
  whizbang::MessageHop last = envelope.hops.front();
  last.trace_parent.clear();  // a hop without tp is passed over, not counted
  envelope.hops.push_back(last);
  whizbang::InMemoryMetrics metrics;
  const whizbang::IncomingTrace incoming = whizbang::read_incoming_trace(envelope, &metrics);
  ASSERT_TRUE(incoming.context.has_value());
  EXPECT_EQ(incoming.context->traceparent(), kDotNetTraceParent);
  EXPECT_TRUE(incoming.saw_invalid);
  EXPECT_EQ(metrics.counter(whizbang::metric_names::kTracingMeter,
                            whizbang::metric_names::kTraceParentInvalid, {}),
            1);
}

TEST(IncomingTraceTests, NoTp_NoContext_NothingCounted) {
  whizbang::InMemoryMetrics metrics;
  const whizbang::IncomingTrace incoming =
      whizbang::read_incoming_trace(order_placed_envelope(), &metrics);
  EXPECT_FALSE(incoming.context.has_value());
  EXPECT_FALSE(incoming.saw_invalid);
  EXPECT_EQ(metrics.counter(whizbang::metric_names::kTracingMeter,
                            whizbang::metric_names::kTraceParentInvalid, {}),
            0);
}

TEST(TracerTests, ChildSpan_KeepsTraceIdAndSampledFlag_ParentIsTheGivenSpan) {
  auto sink = std::make_shared<whizbang_test::RecordingSpanSink>();
  whizbang::Tracer tracer(sink, /*sampling_ratio=*/0.0);  // a continued trace ignores the ratio
  const auto parent = whizbang::TraceContext::parse(kDotNetTraceParent);
  ASSERT_TRUE(parent.has_value());
  {
    whizbang::Span span(&tracer, "test ", "child", whizbang::SpanKind::Internal, &*parent);
    ASSERT_NE(span.context(), nullptr);
    EXPECT_EQ(span.context()->trace_id, parent->trace_id);
    EXPECT_NE(span.context()->span_id, parent->span_id);
    EXPECT_TRUE(std::regex_match(span.context()->traceparent(),
                                 std::regex("00-[0-9a-f]{32}-[0-9a-f]{16}-01")));
  }
  const auto spans = sink->spans();
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "test child");
  EXPECT_EQ(spans[0].parent_span_id, parent->span_id);
}

TEST(TracerTests, RatioZero_NewTraceIsNotRecorded_ButHasAContextToPropagate) {
  auto sink = std::make_shared<whizbang_test::RecordingSpanSink>();
  whizbang::Tracer tracer(sink, 0.0);
  {
    whizbang::Span span(&tracer, "test ", "root", whizbang::SpanKind::Internal, nullptr);
    ASSERT_NE(span.context(), nullptr);
    EXPECT_FALSE(span.context()->sampled());
    EXPECT_FALSE(span.recording());
  }
  EXPECT_TRUE(sink->spans().empty());
}

TEST(TracerTests, Sampling_DecidedByTraceId_SameAnswerEveryTime) {
  whizbang::Tracer tracer(std::make_shared<whizbang_test::RecordingSpanSink>(), 0.5);
  int sampled = 0;
  for (int i = 0; i < 2000; ++i) {
    const whizbang::TraceId id = whizbang::random_trace_id();
    EXPECT_EQ(tracer.samples(id), tracer.samples(id));
    sampled += tracer.samples(id) ? 1 : 0;
  }
  EXPECT_GT(sampled, 800);
  EXPECT_LT(sampled, 1200);
}

TEST(TracerTests, TraceScope_NestsAndRestores) {
  EXPECT_EQ(whizbang::TraceScope::current(), nullptr);
  const auto outer = whizbang::TraceContext::parse(kDotNetTraceParent);
  {
    whizbang::TraceScope scope(*outer);
    ASSERT_NE(whizbang::TraceScope::current(), nullptr);
    EXPECT_EQ(*whizbang::TraceScope::current(), *outer);
    {
      whizbang::TraceScope nothing(static_cast<const whizbang::TraceContext*>(nullptr));
      EXPECT_EQ(*whizbang::TraceScope::current(), *outer) << "a null context changes nothing";
    }
  }
  EXPECT_EQ(whizbang::TraceScope::current(), nullptr);
}

TEST(TracerTests, HandlingSpanIds_DeterministicPerAttempt) {
  const whizbang::MessageId id = whizbang::MessageId::mint();
  EXPECT_EQ(whizbang::handling_span_id(id, "H", 1), whizbang::handling_span_id(id, "H", 1));
  EXPECT_NE(whizbang::handling_span_id(id, "H", 1), whizbang::handling_span_id(id, "H", 0));
  EXPECT_NE(whizbang::handling_span_id(id, "H", 0), whizbang::handling_span_id(id, "G", 0));
}

}  // namespace
}  // namespace tracing_test
