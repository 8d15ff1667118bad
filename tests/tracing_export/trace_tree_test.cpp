// The receiver's tree of one trace (what ./dev.sh run distributed prints): spans under their
// parents across services, with durations and the exactly-once decision.
#include <gtest/gtest.h>

#include "span_samples.hpp"
#include "trace_tree.hpp"
#include "whizbang/observability/trace_names.hpp"

namespace {

whizbang::ReceivedSpan received(std::string service, whizbang::SpanData span) {
  return {{}, std::move(service), std::move(span)};
}

TEST(TraceTreeTests, SpansOfTwoServicesPrintUnderTheirParentsWithDurationAndDecision) {
  auto root = tracing_test::numbered_span(1);
  root.name = "send shop::PlaceOrder";
  root.end = root.start + std::chrono::microseconds(2100);
  auto handle = tracing_test::numbered_span(2);
  handle.name = "handle shop::PlaceOrder";
  handle.parent_span_id = root.context.span_id;
  handle.attributes = {
      {std::string(whizbang::span_attributes::kExactlyOnceDecision), std::string("fired")}};
  auto remote = tracing_test::numbered_span(3);
  remote.name = "handle shop::OrderPlaced";
  remote.parent_span_id = handle.context.span_id;
  remote.attributes = {{std::string(whizbang::span_attributes::kExactlyOnceDecision),
                        std::string("skipped_fired_elsewhere")}};
  // Received out of order, as batches of two processes arrive.
  const std::vector<whizbang::ReceivedSpan> spans = {
      received("notifications", remote), received("orders", handle), received("orders", root)};
  const std::string tree = whizbang::format_trace_tree(spans);
  EXPECT_EQ(tree, "trace " + root.context.trace_id.hex() +
                      ": 3 spans, 2 services (orders, notifications)\n"
                      "[orders] send shop::PlaceOrder  2.1 ms\n"
                      "  [orders] handle shop::PlaceOrder  10 us  decision=fired\n"
                      "    [notifications] handle shop::OrderPlaced  10 us  "
                      "decision=skipped_fired_elsewhere\n");
}

TEST(TraceTreeTests, ASpanWhoseParentWasNotReceivedIsARoot) {
  auto orphan = tracing_test::numbered_span(5);
  orphan.parent_span_id = tracing_test::numbered_span(99).context.span_id;
  const std::vector<whizbang::ReceivedSpan> spans = {received("orders", orphan)};
  EXPECT_NE(whizbang::format_trace_tree(spans).find("\n[orders] span 5"), std::string::npos);
}

TEST(TraceTreeTests, TheBusiestTraceIsTheOneAcrossMostServices) {
  std::vector<whizbang::ReceivedSpan> spans;
  for (int i = 0; i < 5; ++i)
    spans.push_back(received("orders", tracing_test::numbered_span(i, 0x01)));
  spans.push_back(received("orders", tracing_test::numbered_span(10, 0x50)));
  spans.push_back(received("notifications", tracing_test::numbered_span(11, 0x50)));
  const auto busiest = whizbang::busiest_trace(spans);
  ASSERT_TRUE(busiest.has_value());
  EXPECT_EQ(*busiest, tracing_test::numbered_span(10, 0x50).context.trace_id);
  EXPECT_FALSE(whizbang::busiest_trace({}).has_value());
}

}  // namespace
