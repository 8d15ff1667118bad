// Spans: what the runtime records about one piece of work (a dispatch, an outbox publish, a
// delivery, a handling, a receptor stage, a perspective apply) and hands to a SpanSink, which
// exports it (OTLP, docs/guide/18-tracing.md) or keeps it (tests).
//
// The model follows OpenTelemetry's (trace id, span id, parent, kind, attributes, events, links,
// status) so an exporter maps it one to one. Ids are W3C trace-context ids: a trace id of 16
// bytes and a span id of 8, neither all zero.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "whizbang/observability/span_key.hpp"

namespace whizbang {

struct TraceId {
  std::array<std::uint8_t, 16> bytes{};
  bool valid() const;  // not all zero
  std::string hex() const;
  friend bool operator==(const TraceId&, const TraceId&) = default;
};

struct SpanId {
  std::array<std::uint8_t, 8> bytes{};
  bool valid() const;  // not all zero
  std::string hex() const;
  friend bool operator==(const SpanId&, const SpanId&) = default;
};

// A position in a trace: the W3C `traceparent` of a span, as carried in a hop's `tp`.
struct TraceContext {
  TraceId trace_id;
  SpanId span_id;
  std::uint8_t flags = 0;  // bit 0: sampled

  bool sampled() const { return (flags & 0x01) != 0; }
  // "00-<32 hex trace id>-<16 hex span id>-<2 hex flags>".
  std::string traceparent() const;
  // Parses a W3C traceparent (version 00; a later version is read by its first four fields, as
  // the W3C recommendation says). nullopt for anything malformed or with an all-zero id.
  static std::optional<TraceContext> parse(std::string_view traceparent);

  friend bool operator==(const TraceContext&, const TraceContext&) = default;
};

// OpenTelemetry's span kinds.
enum class SpanKind : std::uint8_t { Internal, Server, Client, Producer, Consumer };

using SpanAttributeValue = std::variant<std::string, std::int64_t, double, bool>;

struct SpanAttribute {
  // Borrowed when the span set it from a SpanKey (a constant: no copy on the hot path), owned
  // when decoded or built from a run-time string.
  AttributeKey key;
  SpanAttributeValue value;
  friend bool operator==(const SpanAttribute&, const SpanAttribute&) = default;
};

// Something that happened during a span (an exception: name "exception" with the
// `exception.type` / `exception.message` attributes of the semantic conventions).
struct SpanEvent {
  std::string name;
  std::chrono::system_clock::time_point time{};
  std::vector<SpanAttribute> attributes;
};

// A span of another trace or of an earlier attempt this one relates to (a retry links to the
// attempt before it).
struct SpanLink {
  TraceContext context;
  std::vector<SpanAttribute> attributes;
};

enum class SpanStatusCode : std::uint8_t { Unset, Ok, Error };

// One finished span.
struct SpanData {
  TraceContext context;                  // this span's trace id, span id and flags
  std::optional<SpanId> parent_span_id;  // none for a trace's root
  std::string name;
  SpanKind kind = SpanKind::Internal;
  std::chrono::system_clock::time_point start{};
  std::chrono::system_clock::time_point end{};
  std::vector<SpanAttribute> attributes;
  std::vector<SpanEvent> events;
  std::vector<SpanLink> links;
  SpanStatusCode status = SpanStatusCode::Unset;
  std::string status_message;  // with Error only
};

// Who produced the spans: OpenTelemetry resource attributes (`service.name`,
// `service.instance.id`, ...), sent once per export.
struct TraceResource {
  std::vector<SpanAttribute> attributes;
};

// Where finished spans go. on_end is called on the thread that ended the span, on the handling's
// path: it must not block (an exporter queues, and drops with a counter when its queue is full).
class SpanSink {
 public:
  virtual ~SpanSink() = default;
  virtual void on_end(SpanData span) = 0;
  // Sends what is queued; waits up to `timeout`. Called on stop.
  virtual void flush(std::chrono::milliseconds timeout) = 0;
};

}  // namespace whizbang
