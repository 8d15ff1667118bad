#include "whizbang/otlp/otlp_exporter.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "otlp_http_client.hpp"
#include "otlp_retry.hpp"
#include "spdlog/spdlog.h"
#include "whizbang/observability/log_rate_limiter.hpp"
#include "whizbang/otlp/otlp_protobuf.hpp"

namespace whizbang {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kQueueFull = "queue_full";
constexpr std::string_view kExportFailed = "export_failed";

void count(Metrics* metrics, std::string_view name, std::uint64_t delta,
           std::string_view reason = {}) {
  if (metrics == nullptr || delta == 0) return;
  const MetricTag tag{metric_names::kReasonTag, reason};
  metrics->add(metric_names::kTraceExportMeter, name, static_cast<std::int64_t>(delta),
               reason.empty() ? std::span<const MetricTag>() : std::span<const MetricTag>(&tag, 1));
}

}  // namespace

TraceResource otlp_service_resource(std::string_view service_name, std::string_view instance_id) {
  TraceResource resource;
  resource.attributes.push_back({"service.name", std::string(service_name)});
  if (!instance_id.empty()) {
    resource.attributes.push_back({"service.instance.id", std::string(instance_id)});
  }
  resource.attributes.push_back({"telemetry.sdk.name", std::string("whizbang")});
  resource.attributes.push_back({"telemetry.sdk.language", std::string("cpp")});
  return resource;
}

std::string otlp_traces_url(std::string_view endpoint) {
  std::string url(endpoint);
  while (url.ends_with('/')) url.pop_back();
  if (!url.ends_with("/v1/traces")) url.append("/v1/traces");
  return url;
}

// The queue and the background thread. on_end and flush take the mutex only to move spans in or
// read counters; the thread holds it only to move a batch out, never across a request.
class OtlpExporter::Worker {
 public:
  explicit Worker(OtlpExporterOptions options)
      : options_(std::move(options)),
        client_(otlp_traces_url(options_.endpoint), options_.headers, options_.timeout, abort_),
        logger_(options_.logger ? options_.logger : spdlog::default_logger()) {
    thread_ = std::thread([this] { run(); });
  }
  ~Worker() { shutdown(options_.timeout); }

  void on_end(SpanData span) {
    {
      std::lock_guard lock(mutex_);
      if (!stopping_ && queue_.size() < options_.max_queue_size) {
        if (queue_.empty()) oldest_ = SteadyClock::now();
        queue_.push_back(std::move(span));
        ++accepted_;
        // The thread waits without a deadline while the queue is empty: the first span starts
        // its delay, a full batch ends it.
        if (queue_.size() == 1 || queue_.size() >= options_.max_batch_size) wake_.notify_one();
        return;
      }
    }
    dropped_full_.fetch_add(1, std::memory_order_relaxed);
    count(options_.metrics.get(), metric_names::kTraceSpansDropped, 1, kQueueFull);
  }

  void flush(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    const std::uint64_t target = accepted_;
    if (settled_ >= target) return;
    flush_target_ = std::max(flush_target_, target);
    wake_.notify_one();
    settled_changed_.wait_for(lock, timeout, [&] { return settled_ >= target || finished_; });
  }

  void shutdown(std::chrono::milliseconds timeout) {
    {
      std::lock_guard lock(stop_mutex_);
      if (!thread_.joinable()) return;
      flush(timeout);
      {
        std::lock_guard lock2(mutex_);
        stopping_ = true;
      }
      abort_ = true;  // a request still under way past the flush's time ends now
      wake_.notify_one();
      thread_.join();
    }
    // What the flush did not send in time is dropped, counted.
    std::lock_guard lock(mutex_);
    const std::uint64_t left = queue_.size();
    queue_.clear();
    settled_ += left;
    dropped_full_.fetch_add(left, std::memory_order_relaxed);
    count(options_.metrics.get(), metric_names::kTraceSpansDropped, left, kQueueFull);
  }

  Stats stats() const {
    Stats stats;
    stats.exported = exported_.load();
    stats.dropped_full = dropped_full_.load();
    stats.dropped_failed = dropped_failed_.load();
    stats.failed_requests = failed_requests_.load();
    stats.requests = requests_.load();
    stats.retries = retries_.load();
    return stats;
  }

 private:
  // Whether a batch should go now: a full one, a flush waiting, or the oldest span's delay over.
  bool batch_due(SteadyClock::time_point now) const {
    if (queue_.empty()) return false;
    return queue_.size() >= options_.max_batch_size || flush_target_ > settled_ ||
           now >= oldest_ + options_.schedule_delay;
  }

  void run() {
    std::unique_lock lock(mutex_);
    while (true) {
      if (queue_.empty() && stopping_) break;
      if (!batch_due(SteadyClock::now())) {
        if (stopping_) break;
        if (queue_.empty()) {
          wake_.wait(lock);
        } else {
          wake_.wait_until(lock, oldest_ + options_.schedule_delay);
        }
        continue;
      }
      const std::size_t take = std::min(queue_.size(), options_.max_batch_size);
      std::vector<SpanData> batch(
          std::make_move_iterator(queue_.begin()),
          std::make_move_iterator(queue_.begin() + static_cast<long>(take)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<long>(take));
      if (!queue_.empty()) oldest_ = SteadyClock::now();
      lock.unlock();
      send(batch);
      lock.lock();
      settled_ += take;
      settled_changed_.notify_all();
    }
    finished_ = true;
    settled_changed_.notify_all();
  }

  void send(const std::vector<SpanData>& batch) {
    const std::string body = encode_export_request(options_.resource, batch);
    otlp::HttpPostResult result;
    for (int attempt = 1;; ++attempt) {
      requests_.fetch_add(1);
      result = client_.post(body);
      if (!otlp::retryable(result) || attempt >= options_.max_export_attempts) break;
      if (!wait_before_retry(otlp::retry_delay(attempt, result, options_.retry_initial_backoff,
                                               options_.retry_max_backoff))) {
        break;
      }
      retries_.fetch_add(1);
    }
    if (result.ok()) {
      exported_.fetch_add(batch.size());
      count(options_.metrics.get(), metric_names::kTraceSpansExported, batch.size());
      if (const auto recovery = failures_.recovered()) {
        logger_->info("OTLP export to {} succeeds again after {} ({} failed requests)",
                      otlp_traces_url(options_.endpoint), LogRateLimiter::seconds(recovery->lasted),
                      recovery->occurrences);
      }
      return;
    }
    failed_requests_.fetch_add(1);
    dropped_failed_.fetch_add(batch.size());
    count(options_.metrics.get(), metric_names::kTraceExportFailures, 1);
    count(options_.metrics.get(), metric_names::kTraceSpansDropped, batch.size(), kExportFailed);
    const std::string why = result.error.empty()
                                ? "HTTP " + std::to_string(result.status) + ": " + result.body
                                : result.error;
    if (const auto logged = failures_.occurred(why)) {
      logger_->warn("OTLP export to {} failed, {} spans dropped: {}{}",
                    otlp_traces_url(options_.endpoint), batch.size(), why, logged->suffix());
    }
  }

  // The backoff before a retry, on the exporter's thread (never the handling's); false when
  // shutdown cut it short.
  bool wait_before_retry(std::chrono::milliseconds delay) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, delay, [&] { return stopping_; });
  }

  const OtlpExporterOptions options_;
  std::atomic<bool> abort_{false};
  otlp::OtlpHttpClient client_;  // the thread's only
  std::shared_ptr<spdlog::logger> logger_;
  LogRateLimiter failures_;  // the thread's only

  std::mutex mutex_;
  std::condition_variable wake_;             // the thread: spans, a flush or stop
  std::condition_variable settled_changed_;  // flush(): a batch is done
  std::deque<SpanData> queue_;
  SteadyClock::time_point oldest_{};
  std::uint64_t accepted_ = 0;      // spans ever queued
  std::uint64_t settled_ = 0;       // of those, sent or dropped
  std::uint64_t flush_target_ = 0;  // send at once until settled_ reaches it
  bool stopping_ = false;
  bool finished_ = false;

  std::atomic<std::uint64_t> exported_{0};
  std::atomic<std::uint64_t> dropped_full_{0};
  std::atomic<std::uint64_t> dropped_failed_{0};
  std::atomic<std::uint64_t> failed_requests_{0};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> retries_{0};

  std::mutex stop_mutex_;
  std::thread thread_;
};

absl::StatusOr<std::shared_ptr<OtlpExporter>> OtlpExporter::create(OtlpExporterOptions options) {
  if (!options.endpoint.starts_with("http://") && !options.endpoint.starts_with("https://")) {
    return absl::InvalidArgumentError("OTLP endpoint '" + options.endpoint +
                                      "': expected http://host:port or https://host:port");
  }
  if (options.max_queue_size == 0 || options.max_batch_size == 0) {
    return absl::InvalidArgumentError("OTLP exporter: queue and batch sizes must be above 0");
  }
  if (options.max_export_attempts < 1) {
    return absl::InvalidArgumentError("OTLP exporter: max_export_attempts must be at least 1");
  }
  if (options.timeout <= std::chrono::milliseconds::zero()) {
    return absl::InvalidArgumentError("OTLP exporter: the timeout must be above 0");
  }
  return std::shared_ptr<OtlpExporter>(
      new OtlpExporter(std::make_unique<Worker>(std::move(options))));
}

OtlpExporter::OtlpExporter(std::unique_ptr<Worker> worker) : worker_(std::move(worker)) {}
OtlpExporter::~OtlpExporter() = default;

void OtlpExporter::on_end(SpanData span) { worker_->on_end(std::move(span)); }
void OtlpExporter::flush(std::chrono::milliseconds timeout) { worker_->flush(timeout); }
void OtlpExporter::shutdown(std::chrono::milliseconds timeout) { worker_->shutdown(timeout); }
OtlpExporter::Stats OtlpExporter::stats() const { return worker_->stats(); }

}  // namespace whizbang
