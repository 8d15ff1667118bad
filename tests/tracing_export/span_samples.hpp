// Spans with every field set, for the OTLP tests.
#pragma once

#include <string>

#include "whizbang/observability/span_data.hpp"
#include "whizbang/observability/trace_names.hpp"

namespace tracing_test {

inline whizbang::TraceContext context(std::uint8_t trace_seed, std::uint8_t span_seed,
                                      std::uint8_t flags = 0x01) {
  whizbang::TraceContext context;
  for (std::size_t i = 0; i < context.trace_id.bytes.size(); ++i) {
    context.trace_id.bytes[i] = static_cast<std::uint8_t>(trace_seed + i);
  }
  for (std::size_t i = 0; i < context.span_id.bytes.size(); ++i) {
    context.span_id.bytes[i] = static_cast<std::uint8_t>(span_seed + i * 3 + 1);
  }
  context.flags = flags;
  return context;
}

inline std::chrono::system_clock::time_point at(std::int64_t micros) {
  return std::chrono::system_clock::time_point(
      std::chrono::microseconds(1'700'000'000'000'000 + micros));
}

// A span using every field of SpanData: parent, kind, each attribute value type, an event, a
// link, an error status, flags.
inline whizbang::SpanData full_span() {
  whizbang::SpanData span;
  span.context = context(0x10, 0x20, 0x01);
  span.parent_span_id = context(0x10, 0x40).span_id;
  span.name = "handle shop::PlaceOrder";
  span.kind = whizbang::SpanKind::Consumer;
  span.start = at(0);
  span.end = at(1500);
  span.attributes = {
      {"messaging.system", std::string("rabbitmq")},
      {"whizbang.attempt", std::int64_t{3}},
      {"whizbang.ratio", 0.25},
      {"whizbang.duplicate", true},
      {std::string(whizbang::span_attributes::kExactlyOnceDecision), std::string("fired")}};
  span.events = {{"exception",
                  at(700),
                  {{"exception.type", std::string("std::runtime_error")},
                   {"exception.message", std::string("stock service down")}}}};
  span.links = {{context(0x10, 0x60, 0x00), {{"whizbang.link", std::string("retry_of")}}}};
  span.status = whizbang::SpanStatusCode::Error;
  span.status_message = "stock service down";
  return span;
}

// A small span numbered `n` (its span id and name carry n).
inline whizbang::SpanData numbered_span(int n, std::uint8_t trace_seed = 0x30) {
  whizbang::SpanData span;
  span.context = context(trace_seed, static_cast<std::uint8_t>(n));
  span.context.span_id.bytes[0] = static_cast<std::uint8_t>(n >> 8);
  span.context.span_id.bytes[1] = static_cast<std::uint8_t>(n);
  span.context.span_id.bytes[7] = 0x7f;
  span.name = "span " + std::to_string(n);
  span.start = at(n);
  span.end = at(n + 10);
  return span;
}

}  // namespace tracing_test
