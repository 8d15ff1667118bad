// OtlpExporter: a SpanSink that sends finished spans to an OpenTelemetry collector over
// OTLP/HTTP with protobuf bodies (POST <endpoint>/v1/traces, Content-Type
// application/x-protobuf; docs/guide/18-tracing.md).
//
//   OtlpExporterOptions options;
//   options.endpoint = "http://collector:4318";
//   options.headers = {{"authorization", "Bearer ..."}};
//   options.resource = otlp_service_resource("orders", "orders-1");
//   options.metrics = metrics;
//   auto exporter = OtlpExporter::create(std::move(options));
//   host_options.span_sink = *exporter;
//   ...
//   (*exporter)->shutdown(std::chrono::seconds(5));  // sends what is queued, ends the thread
//
// on_end never blocks and never waits for the network: it moves the span into a bounded queue
// (max_queue_size) and returns; when the queue is full the span is dropped and counted
// (metric_names::kTraceSpansDropped, reason queue_full), so a slow or absent collector costs the
// handling nothing but lost spans. One background thread sends batches of up to max_batch_size
// spans, as soon as a batch is full or schedule_delay after the oldest queued span. A request
// the collector answers 429, 502, 503 or 504, or does not answer (connection refused, a
// timeout), is sent again with backoff on that thread, up to max_export_attempts; meanwhile
// on_end keeps queueing (and dropping at a full queue). A batch refused otherwise, or still
// failing after its attempts, is dropped and counted (reason export_failed); failures are
// logged, rate-limited (LogRateLimiter).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/observability/span_data.hpp"

namespace spdlog {
class logger;
}

namespace whizbang {

struct OtlpExporterOptions {
  // The collector's OTLP/HTTP base ("http://localhost:4318"); /v1/traces is appended unless the
  // endpoint already ends in it. http:// or https:// (libcurl: the system's CA certificates and
  // the usual https_proxy / no_proxy variables).
  std::string endpoint = "http://localhost:4318";
  // Sent with every request ("authorization: Bearer ...", a vendor's API key).
  std::vector<std::pair<std::string, std::string>> headers;
  // The most one request may take, connecting included.
  std::chrono::milliseconds timeout{10000};
  // Spans queued at most; more are dropped (counted).
  std::size_t max_queue_size = 2048;
  // Spans per request at most.
  std::size_t max_batch_size = 512;
  // How long a span may wait for its batch to fill before it is sent anyway.
  std::chrono::milliseconds schedule_delay{1000};
  // Requests per batch at most (1: no retry). Retries wait retry_initial_backoff, doubling, at
  // most retry_max_backoff (or the collector's Retry-After, capped the same); shutdown ends a
  // wait at once.
  int max_export_attempts = 5;
  std::chrono::milliseconds retry_initial_backoff{1000};
  std::chrono::milliseconds retry_max_backoff{5000};
  // Who sends the spans: service.name, service.instance.id (otlp_service_resource).
  TraceResource resource;
  std::shared_ptr<Metrics> metrics;        // null: not counted
  std::shared_ptr<spdlog::logger> logger;  // null: spdlog's default logger
};

// The resource of a service instance: service.name and service.instance.id (the latter left out
// when empty), plus telemetry.sdk.name "whizbang" and telemetry.sdk.language "cpp".
TraceResource otlp_service_resource(std::string_view service_name, std::string_view instance_id);

// The URL spans are posted to: the endpoint with /v1/traces appended (unless it ends in it).
std::string otlp_traces_url(std::string_view endpoint);

class OtlpExporter final : public SpanSink {
 public:
  // InvalidArgument for an endpoint that is not http:// or https://, sizes of 0, or attempts
  // below 1.
  static absl::StatusOr<std::shared_ptr<OtlpExporter>> create(OtlpExporterOptions options);
  ~OtlpExporter() override;  // shutdown(timeout)
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  // Queues the span; drops it (counted) when the queue is full or after shutdown. Never blocks
  // on the network, the collector or a full queue.
  void on_end(SpanData span) override;
  // Sends every span queued before the call; returns when they are sent (or dropped) or after
  // `timeout`.
  void flush(std::chrono::milliseconds timeout) override;
  // flush(timeout), then ends the background thread; later spans are dropped. Idempotent.
  void shutdown(std::chrono::milliseconds timeout);

  // What the exporter has done so far (also counted in `metrics`).
  struct Stats {
    std::uint64_t exported = 0;         // spans the collector accepted
    std::uint64_t dropped_full = 0;     // spans dropped at a full queue (or after shutdown)
    std::uint64_t dropped_failed = 0;   // spans of batches that failed
    std::uint64_t failed_requests = 0;  // batches given up on (after their attempts)
    std::uint64_t requests = 0;         // HTTP requests, retries included
    std::uint64_t retries = 0;          // requests that were a retry
  };
  Stats stats() const;

 private:
  class Worker;
  explicit OtlpExporter(std::unique_ptr<Worker> worker);
  std::unique_ptr<Worker> worker_;
};

}  // namespace whizbang
