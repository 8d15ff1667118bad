#include "trace_receiver.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>

#include "whizbang/otlp/otlp_protobuf.hpp"

namespace whizbang {
namespace {

constexpr std::size_t kMaxBody = 32 * 1024 * 1024;  // far above one batch of spans

std::string service_of(const TraceResource& resource) {
  for (const SpanAttribute& attribute : resource.attributes) {
    if (attribute.key == "service.name") {
      if (const auto* name = std::get_if<std::string>(&attribute.value)) return *name;
    }
  }
  return {};
}

}  // namespace

absl::StatusOr<std::unique_ptr<TraceReceiver>> TraceReceiver::start(const std::string& address,
                                                                    int port) {
  std::unique_ptr<TraceReceiver> receiver(new TraceReceiver());
  receiver->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *receiver->server_;
  server.set_payload_max_length(kMaxBody);
  TraceReceiver* self = receiver.get();
  server.Post("/v1/traces", [self](const httplib::Request& request, httplib::Response& response) {
    std::vector<std::pair<std::string, std::string>> headers;
    for (const auto& [name, value] : request.headers) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      headers.emplace_back(std::move(lower), value);
    }
    Answer answer = self->receive(request.body, std::move(headers));
    response.status = answer.status;
    if (!answer.retry_after.empty()) response.set_header("Retry-After", answer.retry_after);
    response.set_content(answer.body,
                         answer.status == 200 ? "application/x-protobuf" : "text/plain");
  });
  const int bound = port == 0 ? server.bind_to_any_port(address)
                              : (server.bind_to_port(address, port) ? port : -1);
  if (bound < 0) {
    return absl::UnavailableError("trace receiver: cannot listen on " + address + ":" +
                                  std::to_string(port));
  }
  receiver->port_ = bound;
  auto ended = std::make_shared<std::atomic<bool>>(false);
  receiver->thread_ = std::thread([self, ended] {
    self->server_->listen_after_bind();
    *ended = true;
  });
  // stop() only stops a server that is running: wait until it is (this cpp-httplib has no
  // wait_until_ready). Connections made before then wait in the listen backlog.
  while (!server.is_running() && !*ended) std::this_thread::yield();
  return receiver;
}

TraceReceiver::~TraceReceiver() { stop(); }

std::string TraceReceiver::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

void TraceReceiver::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    holding_ = false;
  }
  changed_.notify_all();
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

TraceReceiver::Answer TraceReceiver::receive(
    const std::string& body, std::vector<std::pair<std::string, std::string>> headers) {
  std::unique_lock lock(mutex_);
  last_headers_ = std::move(headers);
  if (holding_) {
    ++held_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return !holding_ || stopping_; });
    --held_;
  }
  ++requests_;
  changed_.notify_all();
  const auto content_type = std::find_if(last_headers_.begin(), last_headers_.end(),
                                         [](const auto& h) { return h.first == "content-type"; });
  if (content_type == last_headers_.end() || content_type->second != "application/x-protobuf") {
    ++bad_requests_;
    return {415, "expected Content-Type: application/x-protobuf\n"};
  }
  if (refusals_left_ > 0) {
    --refusals_left_;
    return {refusal_status_, "refused by the test\n", retry_after_};
  }
  if (status_ < 200 || status_ > 299) return {status_, "refused by the test\n"};
  absl::StatusOr<std::vector<ExportedSpans>> decoded = decode_export_request(body);
  if (!decoded.ok()) {
    ++bad_requests_;
    return {400, std::string(decoded.status().message()) + "\n"};
  }
  for (ExportedSpans& exported : *decoded) {
    const std::string service = service_of(exported.resource);
    for (SpanData& span : exported.spans) {
      spans_.push_back({exported.resource, service, std::move(span)});
    }
  }
  changed_.notify_all();
  // An empty ExportTraceServiceResponse: no partial success to report.
  return {200, std::string()};
}

std::vector<ReceivedSpan> TraceReceiver::spans() const {
  std::lock_guard lock(mutex_);
  return spans_;
}

std::vector<ReceivedSpan> TraceReceiver::trace(const TraceId& trace_id) const {
  std::lock_guard lock(mutex_);
  std::vector<ReceivedSpan> out;
  for (const ReceivedSpan& span : spans_) {
    if (span.span.context.trace_id == trace_id) out.push_back(span);
  }
  return out;
}

bool TraceReceiver::wait_for_spans(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return spans_.size() >= count; });
}

bool TraceReceiver::wait_until(const std::function<bool(const std::vector<ReceivedSpan>&)>& done,
                               std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return done(spans_); });
}

bool TraceReceiver::wait_for_requests(std::uint64_t count,
                                      std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return requests_ >= count; });
}

std::uint64_t TraceReceiver::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::uint64_t TraceReceiver::bad_requests() const {
  std::lock_guard lock(mutex_);
  return bad_requests_;
}

std::vector<std::pair<std::string, std::string>> TraceReceiver::last_headers() const {
  std::lock_guard lock(mutex_);
  return last_headers_;
}

void TraceReceiver::respond_with(int status) {
  std::lock_guard lock(mutex_);
  status_ = status;
}

void TraceReceiver::respond_with(int status, std::size_t times, std::string retry_after) {
  std::lock_guard lock(mutex_);
  refusal_status_ = status;
  refusals_left_ = times;
  retry_after_ = std::move(retry_after);
}

void TraceReceiver::hold_requests() {
  std::lock_guard lock(mutex_);
  holding_ = true;
}

void TraceReceiver::release_requests() {
  {
    std::lock_guard lock(mutex_);
    holding_ = false;
  }
  changed_.notify_all();
}

bool TraceReceiver::wait_for_held(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return held_ >= count; });
}

}  // namespace whizbang
