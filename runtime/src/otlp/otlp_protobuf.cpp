#include "whizbang/otlp/otlp_protobuf.hpp"

#include <algorithm>

#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace whizbang {
namespace {

namespace common = opentelemetry::proto::common::v1;
namespace trace = opentelemetry::proto::trace::v1;
using opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest;
using Clock = std::chrono::system_clock;

// Span.flags: bits 0-7 are the W3C trace flags (opentelemetry-proto's SpanFlags).
constexpr std::uint32_t kTraceFlagsMask = 0xff;

std::uint64_t unix_nanos(Clock::time_point time) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count());
}

Clock::time_point from_unix_nanos(std::uint64_t nanos) {
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(nanos)));
}

template <std::size_t N>
std::string id_bytes(const std::array<std::uint8_t, N>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

template <std::size_t N>
bool read_id(const std::string& text, std::array<std::uint8_t, N>& bytes) {
  if (text.size() != N) return false;
  std::copy(text.begin(), text.end(), bytes.begin());
  return true;
}

void write_attributes(const std::vector<SpanAttribute>& attributes,
                      google::protobuf::RepeatedPtrField<common::KeyValue>* into) {
  for (const SpanAttribute& attribute : attributes) {
    common::KeyValue* pair = into->Add();
    pair->set_key(attribute.key);
    common::AnyValue* value = pair->mutable_value();
    std::visit(
        [value](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            value->set_string_value(v);
          } else if constexpr (std::is_same_v<T, std::int64_t>) {
            value->set_int_value(v);
          } else if constexpr (std::is_same_v<T, double>) {
            value->set_double_value(v);
          } else {
            value->set_bool_value(v);
          }
        },
        attribute.value);
  }
}

SpanAttributeValue read_value(const common::AnyValue& value) {
  switch (value.value_case()) {
    case common::AnyValue::kStringValue:
      return value.string_value();
    case common::AnyValue::kIntValue:
      return static_cast<std::int64_t>(value.int_value());
    case common::AnyValue::kDoubleValue:
      return value.double_value();
    case common::AnyValue::kBoolValue:
      return value.bool_value();
    case common::AnyValue::kBytesValue:
      return value.bytes_value();
    default:
      // Arrays and maps: their text, so nothing a collector-side producer sent is lost.
      return value.ShortDebugString();
  }
}

std::vector<SpanAttribute> read_attributes(
    const google::protobuf::RepeatedPtrField<common::KeyValue>& pairs) {
  std::vector<SpanAttribute> attributes;
  attributes.reserve(static_cast<std::size_t>(pairs.size()));
  for (const common::KeyValue& pair : pairs) {
    attributes.push_back({pair.key(), read_value(pair.value())});
  }
  return attributes;
}

trace::Span::SpanKind to_proto(SpanKind kind) {
  switch (kind) {
    case SpanKind::Internal:
      return trace::Span::SPAN_KIND_INTERNAL;
    case SpanKind::Server:
      return trace::Span::SPAN_KIND_SERVER;
    case SpanKind::Client:
      return trace::Span::SPAN_KIND_CLIENT;
    case SpanKind::Producer:
      return trace::Span::SPAN_KIND_PRODUCER;
    case SpanKind::Consumer:
      return trace::Span::SPAN_KIND_CONSUMER;
  }
  return trace::Span::SPAN_KIND_UNSPECIFIED;
}

SpanKind from_proto(trace::Span::SpanKind kind) {
  switch (kind) {
    case trace::Span::SPAN_KIND_SERVER:
      return SpanKind::Server;
    case trace::Span::SPAN_KIND_CLIENT:
      return SpanKind::Client;
    case trace::Span::SPAN_KIND_PRODUCER:
      return SpanKind::Producer;
    case trace::Span::SPAN_KIND_CONSUMER:
      return SpanKind::Consumer;
    default:
      return SpanKind::Internal;  // INTERNAL, and UNSPECIFIED as the specification says
  }
}

trace::Status::StatusCode to_proto(SpanStatusCode code) {
  switch (code) {
    case SpanStatusCode::Ok:
      return trace::Status::STATUS_CODE_OK;
    case SpanStatusCode::Error:
      return trace::Status::STATUS_CODE_ERROR;
    case SpanStatusCode::Unset:
      break;
  }
  return trace::Status::STATUS_CODE_UNSET;
}

SpanStatusCode from_proto(trace::Status::StatusCode code) {
  if (code == trace::Status::STATUS_CODE_OK) return SpanStatusCode::Ok;
  if (code == trace::Status::STATUS_CODE_ERROR) return SpanStatusCode::Error;
  return SpanStatusCode::Unset;
}

void write_span(const SpanData& data, trace::Span* span) {
  span->set_trace_id(id_bytes(data.context.trace_id.bytes));
  span->set_span_id(id_bytes(data.context.span_id.bytes));
  if (data.parent_span_id) span->set_parent_span_id(id_bytes(data.parent_span_id->bytes));
  span->set_flags(data.context.flags);
  span->set_name(data.name);
  span->set_kind(to_proto(data.kind));
  span->set_start_time_unix_nano(unix_nanos(data.start));
  span->set_end_time_unix_nano(unix_nanos(data.end));
  write_attributes(data.attributes, span->mutable_attributes());
  for (const SpanEvent& event : data.events) {
    trace::Span::Event* out = span->add_events();
    out->set_name(event.name);
    out->set_time_unix_nano(unix_nanos(event.time));
    write_attributes(event.attributes, out->mutable_attributes());
  }
  for (const SpanLink& link : data.links) {
    trace::Span::Link* out = span->add_links();
    out->set_trace_id(id_bytes(link.context.trace_id.bytes));
    out->set_span_id(id_bytes(link.context.span_id.bytes));
    out->set_flags(link.context.flags);
    write_attributes(link.attributes, out->mutable_attributes());
  }
  if (data.status != SpanStatusCode::Unset) {
    span->mutable_status()->set_code(to_proto(data.status));
    if (data.status == SpanStatusCode::Error) {
      span->mutable_status()->set_message(data.status_message);
    }
  }
}

absl::StatusOr<SpanData> read_span(const trace::Span& span) {
  SpanData data;
  if (!read_id(span.trace_id(), data.context.trace_id.bytes) ||
      !read_id(span.span_id(), data.context.span_id.bytes)) {
    return absl::InvalidArgumentError("span '" + span.name() +
                                      "': a trace id of 16 bytes and a span id of 8 expected");
  }
  if (!span.parent_span_id().empty()) {
    SpanId parent;
    if (!read_id(span.parent_span_id(), parent.bytes)) {
      return absl::InvalidArgumentError("span '" + span.name() +
                                        "': a parent span id of 8 bytes expected");
    }
    data.parent_span_id = parent;
  }
  data.context.flags = static_cast<std::uint8_t>(span.flags() & kTraceFlagsMask);
  data.name = span.name();
  data.kind = from_proto(span.kind());
  data.start = from_unix_nanos(span.start_time_unix_nano());
  data.end = from_unix_nanos(span.end_time_unix_nano());
  data.attributes = read_attributes(span.attributes());
  for (const trace::Span::Event& event : span.events()) {
    data.events.push_back({event.name(), from_unix_nanos(event.time_unix_nano()),
                           read_attributes(event.attributes())});
  }
  for (const trace::Span::Link& link : span.links()) {
    SpanLink out;
    if (!read_id(link.trace_id(), out.context.trace_id.bytes) ||
        !read_id(link.span_id(), out.context.span_id.bytes)) {
      return absl::InvalidArgumentError("span '" + span.name() +
                                        "': a link's ids have the wrong length");
    }
    out.context.flags = static_cast<std::uint8_t>(link.flags() & kTraceFlagsMask);
    out.attributes = read_attributes(link.attributes());
    data.links.push_back(std::move(out));
  }
  data.status = from_proto(span.status().code());
  data.status_message = span.status().message();
  return data;
}

}  // namespace

std::string encode_export_request(const TraceResource& resource, std::span<const SpanData> spans) {
  ExportTraceServiceRequest request;
  trace::ResourceSpans* resource_spans = request.add_resource_spans();
  write_attributes(resource.attributes, resource_spans->mutable_resource()->mutable_attributes());
  trace::ScopeSpans* scope_spans = resource_spans->add_scope_spans();
  scope_spans->mutable_scope()->set_name(std::string(kOtlpScopeName));
  scope_spans->mutable_spans()->Reserve(static_cast<int>(spans.size()));
  for (const SpanData& span : spans) write_span(span, scope_spans->add_spans());
  return request.SerializeAsString();
}

absl::StatusOr<std::vector<ExportedSpans>> decode_export_request(std::string_view bytes) {
  ExportTraceServiceRequest request;
  if (!request.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("not an OTLP ExportTraceServiceRequest (" +
                                      std::to_string(bytes.size()) + " bytes)");
  }
  std::vector<ExportedSpans> out;
  for (const trace::ResourceSpans& resource_spans : request.resource_spans()) {
    const TraceResource resource{read_attributes(resource_spans.resource().attributes())};
    for (const trace::ScopeSpans& scope_spans : resource_spans.scope_spans()) {
      ExportedSpans exported{resource, scope_spans.scope().name(), {}};
      for (const trace::Span& span : scope_spans.spans()) {
        absl::StatusOr<SpanData> data = read_span(span);
        if (!data.ok()) return data.status();
        exported.spans.push_back(*std::move(data));
      }
      out.push_back(std::move(exported));
    }
  }
  return out;
}

}  // namespace whizbang
