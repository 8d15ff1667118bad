// OTLP export, proven against a receiver that decodes with the official definitions' generated
// classes (docs/guide/18-tracing.md): every field of SpanData survives, the resource names the
// service, the request is what a collector expects.
#include <gtest/gtest.h>

#include "span_samples.hpp"
#include "trace_receiver.hpp"
#include "whizbang/otlp/otlp_exporter.hpp"
#include "whizbang/otlp/otlp_protobuf.hpp"

namespace {

using namespace std::chrono_literals;
using whizbang::SpanData;

void expect_same_attributes(const std::vector<whizbang::SpanAttribute>& actual,
                            const std::vector<whizbang::SpanAttribute>& expected) {
  EXPECT_EQ(actual, expected);
}

void expect_same_span(const SpanData& actual, const SpanData& expected) {
  EXPECT_EQ(actual.context, expected.context);
  EXPECT_EQ(actual.parent_span_id, expected.parent_span_id);
  EXPECT_EQ(actual.name, expected.name);
  EXPECT_EQ(actual.kind, expected.kind);
  EXPECT_EQ(actual.start, expected.start);
  EXPECT_EQ(actual.end, expected.end);
  expect_same_attributes(actual.attributes, expected.attributes);
  ASSERT_EQ(actual.events.size(), expected.events.size());
  for (std::size_t i = 0; i < expected.events.size(); ++i) {
    EXPECT_EQ(actual.events[i].name, expected.events[i].name);
    EXPECT_EQ(actual.events[i].time, expected.events[i].time);
    expect_same_attributes(actual.events[i].attributes, expected.events[i].attributes);
  }
  ASSERT_EQ(actual.links.size(), expected.links.size());
  for (std::size_t i = 0; i < expected.links.size(); ++i) {
    EXPECT_EQ(actual.links[i].context, expected.links[i].context);
    expect_same_attributes(actual.links[i].attributes, expected.links[i].attributes);
  }
  EXPECT_EQ(actual.status, expected.status);
  EXPECT_EQ(actual.status_message, expected.status_message);
}

std::shared_ptr<whizbang::OtlpExporter> exporter_to(const whizbang::TraceReceiver& receiver,
                                                    whizbang::OtlpExporterOptions options = {}) {
  options.endpoint = receiver.endpoint();
  auto exporter = whizbang::OtlpExporter::create(std::move(options));
  EXPECT_TRUE(exporter.ok()) << exporter.status();
  return *exporter;
}

TEST(OtlpProtobufTests, EveryFieldOfASpanSurvivesEncodeAndDecode) {
  const SpanData span = tracing_test::full_span();
  const auto resource = whizbang::otlp_service_resource("orders", "instance-1");
  auto decoded = whizbang::decode_export_request(
      whizbang::encode_export_request(resource, std::span<const SpanData>(&span, 1)));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->size(), 1u);
  EXPECT_EQ((*decoded)[0].resource.attributes, resource.attributes);
  EXPECT_EQ((*decoded)[0].scope_name, whizbang::kOtlpScopeName);
  ASSERT_EQ((*decoded)[0].spans.size(), 1u);
  expect_same_span((*decoded)[0].spans[0], span);
}

TEST(OtlpProtobufTests, EachKindAndStatusAndARootSpanMapOneToOne) {
  std::vector<SpanData> spans;
  const whizbang::SpanKind kinds[] = {whizbang::SpanKind::Internal, whizbang::SpanKind::Server,
                                      whizbang::SpanKind::Client, whizbang::SpanKind::Producer,
                                      whizbang::SpanKind::Consumer};
  const whizbang::SpanStatusCode statuses[] = {whizbang::SpanStatusCode::Unset,
                                               whizbang::SpanStatusCode::Ok};
  int n = 0;
  for (const auto kind : kinds) {
    for (const auto status : statuses) {
      SpanData span = tracing_test::numbered_span(++n);
      span.kind = kind;
      span.status = status;
      span.context.flags = static_cast<std::uint8_t>(n % 2);  // sampled and not
      spans.push_back(span);
    }
  }
  auto decoded = whizbang::decode_export_request(whizbang::encode_export_request({}, spans));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ((*decoded)[0].spans.size(), spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    expect_same_span((*decoded)[0].spans[i], spans[i]);
    EXPECT_FALSE((*decoded)[0].spans[i].parent_span_id.has_value());
  }
}

TEST(OtlpProtobufTests, BytesThatAreNotARequestAreRefusedWithAStatus) {
  auto decoded = whizbang::decode_export_request("\xff\xff\xff not protobuf");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(OtlpExporterTests, TracesUrlAppendsTheOtlpPathOnce) {
  EXPECT_EQ(whizbang::otlp_traces_url("http://c:4318"), "http://c:4318/v1/traces");
  EXPECT_EQ(whizbang::otlp_traces_url("http://c:4318/"), "http://c:4318/v1/traces");
  EXPECT_EQ(whizbang::otlp_traces_url("https://c/otlp/v1/traces"), "https://c/otlp/v1/traces");
}

TEST(OtlpExporterTests, AnEndpointThatIsNotHttpIsRefused) {
  whizbang::OtlpExporterOptions options;
  options.endpoint = "collector:4318";
  auto exporter = whizbang::OtlpExporter::create(options);
  ASSERT_FALSE(exporter.ok());
  EXPECT_NE(exporter.status().message().find("collector:4318"), std::string::npos);
}

TEST(OtlpExporterTests, ASpanReachesTheReceiverWithEveryFieldAndTheServiceResource) {
  auto receiver = whizbang::TraceReceiver::start();
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  whizbang::OtlpExporterOptions options;
  options.resource = whizbang::otlp_service_resource("orders", "orders-7");
  options.headers = {{"authorization", "Bearer sesame"}, {"x-tenant", "acme"}};
  auto exporter = exporter_to(**receiver, options);
  exporter->on_end(tracing_test::full_span());
  exporter->flush(10s);

  const auto spans = (*receiver)->spans();
  ASSERT_EQ(spans.size(), 1u);
  expect_same_span(spans[0].span, tracing_test::full_span());
  EXPECT_EQ(spans[0].service, "orders");
  EXPECT_EQ(spans[0].resource.attributes, options.resource.attributes);
  const auto headers = (*receiver)->last_headers();
  const auto has = [&](const std::string& name, const std::string& value) {
    return std::find(headers.begin(), headers.end(), std::pair(name, value)) != headers.end();
  };
  EXPECT_TRUE(has("content-type", "application/x-protobuf"));
  EXPECT_TRUE(has("authorization", "Bearer sesame"));
  EXPECT_TRUE(has("x-tenant", "acme"));
  EXPECT_EQ((*receiver)->bad_requests(), 0u);
  EXPECT_EQ(exporter->stats().exported, 1u);
}

TEST(OtlpExporterTests, ServiceResourceNamesServiceAndInstance) {
  const auto resource = whizbang::otlp_service_resource("billing", "b-2");
  EXPECT_EQ(resource.attributes[0],
            (whizbang::SpanAttribute{"service.name", std::string("billing")}));
  EXPECT_EQ(resource.attributes[1],
            (whizbang::SpanAttribute{"service.instance.id", std::string("b-2")}));
}

}  // namespace
