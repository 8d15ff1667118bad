// The tracer: starts and ends spans, keeps the current trace context on the thread, samples, and
// hands finished spans to the SpanSink (docs/guide/18-tracing.md).
//
// Tracing off (no sink, the default) means no Tracer at all: the runtime holds a null
// `Tracer*` and pays one predictable branch where a span would start. Trace context still
// travels: a hop this service writes carries the thread's current context (TraceScope), so a
// trace started by Whizbang .NET survives a C++ hop that records nothing.
//
// Giving a dispatch a span context (an HTTP request's traceparent): open a TraceScope around
// the call. The dispatch's span (or, tracing off, its hops' `tp`) continues that trace.
//
//   if (auto parent = whizbang::TraceContext::parse(request.header("traceparent"))) {
//     whizbang::TraceScope scope(*parent);
//     dispatcher.send(PlaceOrder{...});   // its hop's `tp` is a child of the request's span
//   }
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "whizbang/observability/span_data.hpp"

namespace whizbang {

// Makes `context` the trace context of the calling thread until destroyed (then the one before
// is current again). Scopes nest; destroy them in reverse order, on the thread that made them.
class TraceScope {
 public:
  explicit TraceScope(const TraceContext& context) noexcept { install(context); }
  // Null: changes nothing (a span that is not traced has no context to install). Inline, so a
  // dispatch with tracing off pays a test, not a call.
  explicit TraceScope(const TraceContext* context) noexcept {
    if (context != nullptr) install(*context);
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  ~TraceScope() {
    if (installed_) restore();
  }

  // The thread's current context: the innermost scope's, or null.
  static const TraceContext* current() noexcept;

 private:
  void install(const TraceContext& context) noexcept;
  void restore() noexcept;

  TraceContext context_;
  const TraceContext* previous_ = nullptr;
  bool installed_ = false;
};

class Tracer {
 public:
  // `sampling_ratio`: the share of new traces recorded (clamped to 0..1), decided from the trace
  // id so every service samples a trace alike.
  Tracer(std::shared_ptr<SpanSink> sink, double sampling_ratio);

  // A context for a new span: a child of `parent` (same trace, its sampled flag), or the root of
  // a new trace (`trace_id` when given, else a random one; sampled by the ratio). `span_id`, when
  // given, is used instead of a random one (deterministic ids: derive_span_id).
  TraceContext start_context(const TraceContext* parent, const TraceId* trace_id = nullptr,
                             const SpanId* span_id = nullptr) const;
  bool samples(const TraceId& trace_id) const;

  void export_span(SpanData span) const { sink_->on_end(std::move(span)); }

 private:
  std::shared_ptr<SpanSink> sink_;
  std::uint64_t sample_below_ = 0;  // sampled when the trace id's low 8 bytes are below this
  bool sample_all_ = true;
};

// A span id derived from `key` (a 64-bit hash of it; never all zero): the same
// handling attempt always gets the same id, so a retry can link to the attempt before it
// without storing anything.
SpanId derive_span_id(std::string_view key);
// A random, valid span id / trace id.
SpanId random_span_id();
TraceId random_trace_id();

// One span being recorded. Default-constructed or started on a null tracer it is inert: every
// call is a no-op and context() is null. Ends (and is exported, when sampled) on end() or when
// destroyed. Move-only; used on one thread.
class Span {
 public:
  Span() = default;
  // Starts "<prefix><subject>" under `parent` (null: a new trace, see Tracer::start_context).
  Span(const Tracer* tracer, std::string_view prefix, std::string_view subject, SpanKind kind,
       const TraceContext* parent, const TraceId* trace_id = nullptr,
       const SpanId* span_id = nullptr);
  Span(Span&& other) noexcept;
  Span& operator=(Span&& other) noexcept;
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  ~Span() { end(); }

  // This span's context (to install with TraceScope or write as a hop's `tp`); null when inert.
  const TraceContext* context() const { return active_ ? &context_ : nullptr; }
  // Whether attributes are kept (started and sampled): guard costly attribute building with it.
  bool recording() const { return data_.has_value(); }

  // Named by value type: an overload set would turn a string literal into a bool.
  // Keys are constants (SpanKey): the span keeps a view of them, never a copy.
  Span& set_string(SpanKey key, std::string_view value);
  Span& set_int(SpanKey key, std::int64_t value);
  Span& set_bool(SpanKey key, bool value);
  Span& add_link(const TraceContext& context);
  // Status Error, with an "exception" event carrying exception.type and exception.message.
  Span& set_error(std::string_view type, std::string_view message);
  // Ends it (exported when recording); later calls do nothing.
  void end() {
    active_ = false;
    if (data_) finish();
  }

 private:
  void finish();

  const Tracer* tracer_ = nullptr;
  TraceContext context_;
  bool active_ = false;
  // Held in the span, not on the heap: a traced message starts about five spans.
  std::optional<SpanData> data_;
};

}  // namespace whizbang
