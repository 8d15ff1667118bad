// OTLP's protobuf messages as SpanData: an `ExportTraceServiceRequest` (the body of a POST to a
// collector's /v1/traces) made from spans, and read back into them. Encoded and decoded by the
// classes protoc generates from the official OpenTelemetry definitions (opentelemetry-proto
// v1.7.0; cmake/WhizbangOtlp.cmake), never by hand. docs/guide/18-tracing.md.
//
//   std::string body = encode_export_request(resource, spans);
//   absl::StatusOr<std::vector<ExportedSpans>> back = decode_export_request(body);
//
// One to one: kind, status, events, links, every attribute value type, the parent span id and
// the W3C trace flags (Span.flags, Link.flags) survive the round trip.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/observability/span_data.hpp"

namespace whizbang {

// The instrumentation scope the runtime's spans are exported under.
inline constexpr std::string_view kOtlpScopeName = "whizbang";

// The spans of one resource (one service instance) in a request.
struct ExportedSpans {
  TraceResource resource;
  std::string scope_name;
  std::vector<SpanData> spans;
};

// A serialized ExportTraceServiceRequest: one ResourceSpans for `resource`, one ScopeSpans
// (kOtlpScopeName) holding `spans`.
std::string encode_export_request(const TraceResource& resource, std::span<const SpanData> spans);

// Reads a serialized ExportTraceServiceRequest; InvalidArgument when the bytes are not one, or
// a span's ids have the wrong length. Attribute values OTLP has and SpanData has not (arrays,
// maps, bytes) are read as their text.
absl::StatusOr<std::vector<ExportedSpans>> decode_export_request(std::string_view bytes);

}  // namespace whizbang
