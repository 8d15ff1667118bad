// TraceReceiver: a small OTLP/HTTP collector for tests and for `./dev.sh run distributed`
// (docs/guide/18-tracing.md). It listens on 127.0.0.1, accepts POST /v1/traces with an
// ExportTraceServiceRequest body (decoded by the official definitions' generated classes,
// decode_export_request), and keeps every span with the service that sent it.
//
//   auto receiver = TraceReceiver::start();          // any free port
//   exporter_options.endpoint = (*receiver)->endpoint();
//   ...
//   (*receiver)->wait_for_spans(5, std::chrono::seconds(10));
//   std::cout << format_trace_tree((*receiver)->trace(trace_id));
//
// Test hooks make it a failing collector (respond_with(503)) or a slow one (hold_requests():
// requests wait until release_requests()).
//
// It serves with cpp-httplib's server rather than the runner's own (runtime/src/host/http): that
// one deliberately reads no request body, and a test collector is not worth widening it for.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/observability/span_data.hpp"

namespace httplib {
class Server;
}

namespace whizbang {

// A span as a collector received it: with the resource (service) that sent it.
struct ReceivedSpan {
  TraceResource resource;
  std::string service;  // the resource's service.name ("" without one)
  SpanData span;
};

class TraceReceiver {
 public:
  static absl::StatusOr<std::unique_ptr<TraceReceiver>> start(
      const std::string& address = "127.0.0.1", int port = 0);
  ~TraceReceiver();
  TraceReceiver(const TraceReceiver&) = delete;
  TraceReceiver& operator=(const TraceReceiver&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:<port>": what an exporter's endpoint is set to.
  std::string endpoint() const;
  // Stops serving (held requests are released first). Idempotent.
  void stop();

  std::vector<ReceivedSpan> spans() const;
  // The spans of one trace, in the order received.
  std::vector<ReceivedSpan> trace(const TraceId& trace_id) const;
  // True once `count` spans have been received in all; false after `timeout`.
  bool wait_for_spans(std::size_t count, std::chrono::milliseconds timeout) const;
  // True once `done(spans received so far)` holds (checked on each export received); false
  // after `timeout`.
  bool wait_until(const std::function<bool(const std::vector<ReceivedSpan>&)>& done,
                  std::chrono::milliseconds timeout) const;

  // What it has seen: requests served (any answer), and those it could not decode.
  std::uint64_t requests() const;
  std::uint64_t bad_requests() const;
  // True once `count` requests have been answered in all (refused ones too); false after
  // `timeout`.
  bool wait_for_requests(std::uint64_t count, std::chrono::milliseconds timeout) const;
  // The headers of the last request, names lower-cased.
  std::vector<std::pair<std::string, std::string>> last_headers() const;

  // Answer every later request with `status` (not 2xx: the spans are not kept).
  void respond_with(int status);
  // Answer only the next `times` requests with `status` (and a Retry-After header when given),
  // the later ones as before: a collector that is briefly overloaded.
  void respond_with(int status, std::size_t times, std::string retry_after = "");
  // Later requests wait, unanswered, until release_requests() (a slow collector).
  void hold_requests();
  void release_requests();
  // True once `count` requests are waiting held; false after `timeout`.
  bool wait_for_held(std::size_t count, std::chrono::milliseconds timeout) const;

 private:
  TraceReceiver() = default;
  struct Answer {
    int status = 200;
    std::string body;
    std::string retry_after = {};
  };
  Answer receive(const std::string& body, std::vector<std::pair<std::string, std::string>> headers);

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = -1;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<ReceivedSpan> spans_;
  std::uint64_t requests_ = 0;
  std::uint64_t bad_requests_ = 0;
  std::vector<std::pair<std::string, std::string>> last_headers_;
  int status_ = 200;
  int refusal_status_ = 200;
  std::size_t refusals_left_ = 0;
  std::string retry_after_;
  bool holding_ = false;
  bool stopping_ = false;
  std::size_t held_ = 0;
};

}  // namespace whizbang
