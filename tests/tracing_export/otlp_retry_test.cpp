// The exporter's retries (docs/guide/18-tracing.md): a request the collector answers 429, 502,
// 503 or 504, or does not answer at all, is sent again with backoff, bounded; other refusals
// are not; Retry-After is honoured; the backoff never blocks the thread that ends spans, the
// queue keeps dropping with its counter while a batch waits, and shutdown cuts a wait short.
// Synchronised on the receiver's state and flush(), never on sleeps.
#include <gtest/gtest.h>

#include "span_samples.hpp"
#include "trace_receiver.hpp"
#include "whizbang/otlp/otlp_exporter.hpp"

namespace otlp_retry_test {
namespace {

using namespace std::chrono_literals;
namespace names = whizbang::metric_names;

struct Fixture {
  std::unique_ptr<whizbang::TraceReceiver> receiver;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics =
      std::make_shared<whizbang::InMemoryMetrics>();

  Fixture() {
    auto started = whizbang::TraceReceiver::start();
    EXPECT_TRUE(started.ok()) << started.status();
    receiver = *std::move(started);
  }

  // Quick retries: the tests wait for them through flush(), not through time.
  std::shared_ptr<whizbang::OtlpExporter> exporter(whizbang::OtlpExporterOptions options = {}) {
    if (options.endpoint == "http://localhost:4318") options.endpoint = receiver->endpoint();
    options.schedule_delay = 1h;
    options.metrics = metrics;
    auto made = whizbang::OtlpExporter::create(std::move(options));
    EXPECT_TRUE(made.ok()) << made.status();
    return *made;
  }

  std::int64_t dropped(std::string_view reason) const {
    return metrics->counter(names::kTraceExportMeter, names::kTraceSpansDropped,
                            {{names::kReasonTag, reason}});
  }
};

whizbang::OtlpExporterOptions quick_retries() {
  whizbang::OtlpExporterOptions options;
  options.retry_initial_backoff = 5ms;
  options.retry_max_backoff = 20ms;
  return options;
}

TEST(OtlpRetryTests, RetryableAnswers_TheBatchIsSentAgainAndArrives) {
  for (const int status : {429, 502, 503, 504}) {
    Fixture f;
    f.receiver->respond_with(status, 2);
    auto exporter = f.exporter(quick_retries());
    exporter->on_end(tracing_test::numbered_span(1));
    exporter->flush(30s);
    EXPECT_EQ(f.receiver->spans().size(), 1u) << status;
    EXPECT_EQ(f.receiver->requests(), 3u) << status;
    const auto stats = exporter->stats();
    EXPECT_EQ(stats.retries, 2u) << status;
    EXPECT_EQ(stats.exported, 1u) << status;
    EXPECT_EQ(stats.dropped_failed, 0u) << status;
    EXPECT_EQ(stats.failed_requests, 0u) << status;
  }
}

TEST(OtlpRetryTests, OtherRefusals_AreNotRetried_TheBatchIsDroppedAtOnce) {
  for (const int status : {400, 401, 404, 413, 500}) {
    Fixture f;
    f.receiver->respond_with(status, 1);
    auto exporter = f.exporter(quick_retries());
    exporter->on_end(tracing_test::numbered_span(1));
    exporter->flush(30s);
    EXPECT_EQ(f.receiver->requests(), 1u) << status;
    EXPECT_EQ(exporter->stats().retries, 0u) << status;
    EXPECT_EQ(exporter->stats().dropped_failed, 1u) << status;
    EXPECT_EQ(f.dropped("export_failed"), 1) << status;
  }
}

TEST(OtlpRetryTests, RetriesAreBounded_AfterMaxAttemptsTheBatchIsDroppedAndCounted) {
  Fixture f;
  f.receiver->respond_with(503);
  whizbang::OtlpExporterOptions options = quick_retries();
  options.max_export_attempts = 3;
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(1));
  exporter->flush(30s);
  EXPECT_EQ(f.receiver->requests(), 3u);
  const auto stats = exporter->stats();
  EXPECT_EQ(stats.retries, 2u);
  EXPECT_EQ(stats.failed_requests, 1u);
  EXPECT_EQ(stats.dropped_failed, 1u);
  EXPECT_EQ(f.dropped("export_failed"), 1);
  EXPECT_EQ(f.metrics->counter(names::kTraceExportMeter, names::kTraceExportFailures), 1);
}

TEST(OtlpRetryTests, ACollectorNotListeningYet_ConnectionErrorsAreRetried) {
  Fixture f;
  whizbang::OtlpExporterOptions options = quick_retries();
  {
    // A port nothing listens on: a receiver's, once stopped.
    auto closed = whizbang::TraceReceiver::start();
    ASSERT_TRUE(closed.ok());
    options.endpoint = (*closed)->endpoint();
  }
  options.max_export_attempts = 4;
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(1));
  exporter->flush(30s);
  const auto stats = exporter->stats();
  EXPECT_EQ(stats.requests, 4u);
  EXPECT_EQ(stats.retries, 3u);
  EXPECT_EQ(stats.dropped_failed, 1u);
}

TEST(OtlpRetryTests, RetryAfter_TheCollectorsWaitIsKeptCappedByTheMaximumBackoff) {
  Fixture f;
  f.receiver->respond_with(429, 1, "1");  // one second, more than the backoff would wait
  whizbang::OtlpExporterOptions options = quick_retries();
  options.retry_max_backoff = 2s;
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(1));
  const auto started = std::chrono::steady_clock::now();
  exporter->flush(30s);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 1s) << "Retry-After was not waited";
  EXPECT_EQ(f.receiver->spans().size(), 1u);
}

TEST(OtlpRetryTests, WhileABatchWaitsToRetry_OnEndNeverBlocksAndOverflowIsDroppedAndCounted) {
  Fixture f;
  f.receiver->respond_with(503);
  whizbang::OtlpExporterOptions options;
  options.max_batch_size = 1;
  options.max_queue_size = 4;
  options.retry_initial_backoff = 1h;  // the first batch waits to retry until shutdown
  options.retry_max_backoff = 1h;
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(0));
  exporter->flush(0ms);  // sends the batch now (it waits for nothing)
  ASSERT_TRUE(f.receiver->wait_for_requests(1, 30s));
  const auto started = std::chrono::steady_clock::now();
  for (int i = 1; i <= 10; ++i) exporter->on_end(tracing_test::numbered_span(i));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1s) << "on_end waited";
  EXPECT_EQ(exporter->stats().dropped_full, 6u);  // 4 queued behind the waiting batch
  EXPECT_EQ(f.dropped("queue_full"), 6);
  // Shutdown ends the wait at once: the waiting batch is dropped as failed, the rest as unsent.
  const auto stopping = std::chrono::steady_clock::now();
  exporter->shutdown(100ms);
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, 30s);
  const auto stats = exporter->stats();
  EXPECT_EQ(stats.exported, 0u);
  EXPECT_EQ(stats.dropped_failed + stats.dropped_full, 11u);
}

TEST(OtlpRetryTests, AttemptsBelowOne_AreRefused) {
  whizbang::OtlpExporterOptions options;
  options.max_export_attempts = 0;
  auto made = whizbang::OtlpExporter::create(options);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("max_export_attempts"), std::string::npos);
}

}  // namespace
}  // namespace otlp_retry_test
