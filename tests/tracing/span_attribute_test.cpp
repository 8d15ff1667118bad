// Span attributes and traceparent parsing, the two costs a traced message pays on every hop
// (docs/guide/18-tracing.md).
#include <gtest/gtest.h>
#include <whizbang/observability/trace_names.hpp>
#include <whizbang/observability/tracer.hpp>

#include <string>
#include <string_view>

#include "support/recording_span_sink.hpp"

namespace {

namespace sa = whizbang::span_attributes;

// A key constant of this file: its characters' address is one within this translation unit (the
// same literal in another one, such as span_attributes' in the runtime, may be another copy).
constexpr std::string_view kOrderKey = "test.order.id";

TEST(SpanAttributeTests, KeysFromConstants_AreBorrowed_ValuesAreCopied) {
  auto sink = std::make_shared<whizbang_test::RecordingSpanSink>();
  whizbang::Tracer tracer(sink, 1.0);
  {
    std::string value = "order-1";
    whizbang::Span span(&tracer, "test ", "keys", whizbang::SpanKind::Internal, nullptr);
    span.set_string(kOrderKey, value).set_int(sa::kAttempt, 2);
    value = "changed";  // the span copied the value
  }
  const auto spans = sink->spans();
  ASSERT_EQ(spans.size(), 1u);
  ASSERT_EQ(spans[0].attributes.size(), 2u);
  const whizbang::SpanAttribute& id = spans[0].attributes[0];
  EXPECT_EQ(id.key, "test.order.id");
  // The very characters of the constant: no copy was made for the key.
  EXPECT_EQ(id.key.view().data(), kOrderKey.data());
  EXPECT_EQ(std::get<std::string>(id.value), "order-1");
  EXPECT_EQ(spans[0].attributes[1].key, "whizbang.attempt");
  EXPECT_EQ(std::get<std::int64_t>(spans[0].attributes[1].value), 2);
}

TEST(SpanAttributeTests, KeysFromRunTimeText_AreOwned) {
  std::string text = "resource.key";
  whizbang::SpanAttribute attribute{text, std::string("v")};
  text = "changed";
  EXPECT_EQ(attribute.key, "resource.key");
  const whizbang::SpanAttribute copy = attribute;
  EXPECT_EQ(copy, attribute);
}

constexpr char kValid[] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

TEST(TraceParentParseTests, EveryNonLowerHexDigit_Rejected) {
  ASSERT_TRUE(whizbang::TraceContext::parse(kValid).has_value());
  const std::string valid = kValid;
  // Each position of the trace id, span id and flags, with characters around the hex ranges.
  for (const std::size_t position : {3u, 20u, 34u, 36u, 45u, 51u, 53u, 54u}) {
    for (const char bad : {'A', 'F', 'g', '/', ':', '`', 'G', ' ', '\xff'}) {
      std::string text = valid;
      text[position] = bad;
      EXPECT_FALSE(whizbang::TraceContext::parse(text).has_value())
          << "position " << position << " char " << static_cast<int>(bad);
    }
  }
}

TEST(TraceParentParseTests, Valid_DecodesEveryByte) {
  const auto context = whizbang::TraceContext::parse(kValid);
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ(context->trace_id.hex(), "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(context->span_id.hex(), "b7ad6b7169203331");
  EXPECT_EQ(context->flags, 0x01);
  EXPECT_EQ(context->traceparent(), kValid);
}

}  // namespace
