#include "whizbang/observability/tracer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <utility>

#include "whizbang/observability/trace_names.hpp"

namespace whizbang {

namespace {

thread_local const TraceContext* t_current = nullptr;

// splitmix64 per thread, seeded once from the OS: ids need uniqueness, not secrecy.
std::uint64_t next_random() {
  thread_local std::uint64_t state = [] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device() ^
           std::hash<std::thread::id>{}(std::this_thread::get_id());
  }();
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void put_u64(std::uint8_t* out, std::uint64_t value) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<std::uint8_t>(value & 0xFF);
    value >>= 8;
  }
}

}  // namespace

void TraceScope::install(const TraceContext& context) noexcept {
  context_ = context;
  previous_ = t_current;
  installed_ = true;
  t_current = &context_;
}

void TraceScope::restore() noexcept { t_current = previous_; }

const TraceContext* TraceScope::current() noexcept { return t_current; }

Tracer::Tracer(std::shared_ptr<SpanSink> sink, double sampling_ratio) : sink_(std::move(sink)) {
  const double ratio = std::isnan(sampling_ratio) ? 0.0 : std::clamp(sampling_ratio, 0.0, 1.0);
  sample_all_ = ratio >= 1.0;
  // 2^64 * ratio, computed in long double to keep ratios near 1 exact enough.
  sample_below_ =
      sample_all_ ? 0 : static_cast<std::uint64_t>(std::ldexp(static_cast<long double>(ratio), 64));
}

bool Tracer::samples(const TraceId& trace_id) const {
  if (sample_all_) return true;
  std::uint64_t low = 0;
  for (std::size_t i = 8; i < 16; ++i) low = (low << 8) | trace_id.bytes[i];
  return low < sample_below_;
}

TraceContext Tracer::start_context(const TraceContext* parent, const TraceId* trace_id,
                                   const SpanId* span_id) const {
  TraceContext context;
  context.span_id = span_id != nullptr && span_id->valid() ? *span_id : random_span_id();
  if (parent != nullptr) {
    context.trace_id = parent->trace_id;
    context.flags = parent->flags;
    return context;
  }
  context.trace_id = trace_id != nullptr && trace_id->valid() ? *trace_id : random_trace_id();
  context.flags = samples(context.trace_id) ? 0x01 : 0x00;
  return context;
}

SpanId derive_span_id(std::string_view key) {
  // FNV-1a, then splitmix64's finalizer: ids need to be stable and spread, not secret, and this
  // runs once per handling.
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (const char c : key) {
    hash ^= static_cast<std::uint8_t>(c);
    hash *= 0x100000001B3ULL;
  }
  hash = (hash ^ (hash >> 30)) * 0xBF58476D1CE4E5B9ULL;
  hash = (hash ^ (hash >> 27)) * 0x94D049BB133111EBULL;
  hash ^= hash >> 31;
  SpanId id;
  put_u64(id.bytes.data(), hash);
  if (!id.valid()) id.bytes[7] = 1;
  return id;
}

SpanId random_span_id() {
  SpanId id;
  do put_u64(id.bytes.data(), next_random());
  while (!id.valid());
  return id;
}

TraceId random_trace_id() {
  TraceId id;
  do {
    put_u64(id.bytes.data(), next_random());
    put_u64(id.bytes.data() + 8, next_random());
  } while (!id.valid());
  return id;
}

Span::Span(const Tracer* tracer, std::string_view prefix, std::string_view subject, SpanKind kind,
           const TraceContext* parent, const TraceId* trace_id, const SpanId* span_id)
    : tracer_(tracer) {
  if (tracer == nullptr) return;
  context_ = tracer->start_context(parent, trace_id, span_id);
  active_ = true;
  if (!context_.sampled()) return;
  data_.emplace();
  data_->context = context_;
  if (parent != nullptr) data_->parent_span_id = parent->span_id;
  data_->name.reserve(prefix.size() + subject.size());
  data_->name.append(prefix).append(subject);
  data_->kind = kind;
  data_->attributes.reserve(8);  // the runtime's spans carry 5 to 8
  data_->start = std::chrono::system_clock::now();
}

Span::Span(Span&& other) noexcept
    : tracer_(other.tracer_),
      context_(other.context_),
      active_(std::exchange(other.active_, false)),
      data_(std::exchange(other.data_, std::nullopt)) {}

Span& Span::operator=(Span&& other) noexcept {
  if (this != &other) {
    end();
    tracer_ = other.tracer_;
    context_ = other.context_;
    active_ = std::exchange(other.active_, false);
    data_ = std::exchange(other.data_, std::nullopt);
  }
  return *this;
}

Span& Span::set_string(SpanKey key, std::string_view value) {
  if (data_) data_->attributes.push_back({key, std::string(value)});
  return *this;
}

Span& Span::set_int(SpanKey key, std::int64_t value) {
  if (data_) data_->attributes.push_back({key, value});
  return *this;
}

Span& Span::set_bool(SpanKey key, bool value) {
  if (data_) data_->attributes.push_back({key, value});
  return *this;
}

Span& Span::add_link(const TraceContext& context) {
  if (data_) data_->links.push_back({context, {}});
  return *this;
}

Span& Span::set_error(std::string_view type, std::string_view message) {
  if (!data_) return *this;
  data_->status = SpanStatusCode::Error;
  data_->status_message = std::string(message);
  SpanEvent event;
  event.name = std::string(span_values::kExceptionEvent);
  event.time = std::chrono::system_clock::now();
  event.attributes.push_back({SpanKey(span_attributes::kExceptionType), std::string(type)});
  event.attributes.push_back({SpanKey(span_attributes::kExceptionMessage), std::string(message)});
  data_->events.push_back(std::move(event));
  return *this;
}

void Span::finish() {
  data_->end = std::chrono::system_clock::now();
  SpanData data = std::move(*data_);
  data_.reset();
  tracer_->export_span(std::move(data));
}

}  // namespace whizbang
