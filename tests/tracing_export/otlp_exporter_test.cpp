// The exporter's queue and thread (docs/guide/18-tracing.md): batches by size and delay, never
// blocks the thread that ends a span whatever the collector does, drops with a counter when
// full, counts failed batches, logs failures rate-limited, and sends what is queued on
// flush/shutdown. Everything synchronises on the receiver's state or flush(), never on sleeps.
#include <gtest/gtest.h>

#include "span_samples.hpp"
#include "support/log_capture.hpp"
#include "trace_receiver.hpp"
#include "whizbang/otlp/otlp_exporter.hpp"

namespace otlp_exporter_test {
namespace {

using namespace std::chrono_literals;
namespace names = whizbang::metric_names;

struct Fixture {
  std::unique_ptr<whizbang::TraceReceiver> receiver;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics =
      std::make_shared<whizbang::InMemoryMetrics>();
  whizbang_test::LogCapture log;

  Fixture() {
    auto started = whizbang::TraceReceiver::start();
    EXPECT_TRUE(started.ok()) << started.status();
    receiver = *std::move(started);
  }

  std::shared_ptr<whizbang::OtlpExporter> exporter(whizbang::OtlpExporterOptions options) {
    if (options.endpoint == "http://localhost:4318") options.endpoint = receiver->endpoint();
    options.metrics = metrics;
    options.logger = log.logger;
    auto made = whizbang::OtlpExporter::create(std::move(options));
    EXPECT_TRUE(made.ok()) << made.status();
    return *made;
  }

  std::int64_t dropped(std::string_view reason) const {
    return metrics->counter(names::kTraceExportMeter, names::kTraceSpansDropped,
                            {{names::kReasonTag, reason}});
  }
};

// A port nothing listens on: a receiver's, once stopped.
std::string closed_endpoint() {
  auto receiver = whizbang::TraceReceiver::start();
  EXPECT_TRUE(receiver.ok());
  std::string endpoint = (*receiver)->endpoint();
  (*receiver)->stop();
  return endpoint;
}

TEST(OtlpExporterTests, FlushSendsQueuedSpansInBatchesOfTheBatchSize) {
  Fixture f;
  whizbang::OtlpExporterOptions options;
  options.max_batch_size = 3;
  options.schedule_delay = 1h;  // only flush() sends a partial batch
  auto exporter = f.exporter(options);
  for (int i = 0; i < 7; ++i) exporter->on_end(tracing_test::numbered_span(i));
  exporter->flush(10s);
  EXPECT_EQ(f.receiver->spans().size(), 7u);
  EXPECT_EQ(f.receiver->requests(), 3u);  // 3 + 3 + 1
  EXPECT_EQ(exporter->stats().exported, 7u);
  EXPECT_EQ(f.metrics->counter(names::kTraceExportMeter, names::kTraceSpansExported), 7);
}

TEST(OtlpExporterTests, AFullBatchIsSentWithoutWaitingForTheDelay) {
  Fixture f;
  whizbang::OtlpExporterOptions options;
  options.max_batch_size = 2;
  options.schedule_delay = 1h;
  auto exporter = f.exporter(options);
  for (int i = 0; i < 4; ++i) exporter->on_end(tracing_test::numbered_span(i));
  ASSERT_TRUE(f.receiver->wait_for_spans(4, 30s));
  EXPECT_EQ(f.receiver->requests(), 2u);
}

TEST(OtlpExporterTests, APartialBatchIsSentOnceTheDelayHasPassed) {
  Fixture f;
  whizbang::OtlpExporterOptions options;
  options.max_batch_size = 100;
  options.schedule_delay = 20ms;
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(1));
  ASSERT_TRUE(f.receiver->wait_for_spans(1, 30s));
  EXPECT_EQ(f.receiver->requests(), 1u);
}

TEST(OtlpExporterTests, ShutdownSendsWhatIsQueued) {
  Fixture f;
  whizbang::OtlpExporterOptions options;
  options.schedule_delay = 1h;
  auto exporter = f.exporter(options);
  for (int i = 0; i < 5; ++i) exporter->on_end(tracing_test::numbered_span(i));
  exporter->shutdown(10s);
  EXPECT_EQ(f.receiver->spans().size(), 5u);
  exporter->on_end(tracing_test::numbered_span(9));  // after shutdown: dropped, counted
  EXPECT_EQ(f.dropped("queue_full"), 1);
}

// A collector that does not answer: the thread that ends spans never waits for it. While the
// one request in flight is held unanswered, 1000 on_end calls all return; the queue keeps its
// bound and every span beyond it is counted as dropped. Nothing here measures time: that every
// call returned while the request was still held is the proof.
TEST(OtlpExporterTests, ASlowCollectorNeverBlocksOnEndAndOverflowIsCountedNotQueued) {
  Fixture f;
  f.receiver->hold_requests();
  whizbang::OtlpExporterOptions options;
  options.max_batch_size = 1;
  options.max_queue_size = 10;
  options.timeout = 60s;
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(0));
  ASSERT_TRUE(f.receiver->wait_for_held(1, 30s));  // the exporter's thread waits on the collector

  constexpr int kEnded = 1000;
  for (int i = 1; i <= kEnded; ++i) exporter->on_end(tracing_test::numbered_span(i));
  EXPECT_EQ(f.receiver->requests(), 0u) << "the collector answered: the test proves nothing";
  const auto stats = exporter->stats();
  EXPECT_EQ(stats.dropped_full, static_cast<std::uint64_t>(kEnded - 10));
  EXPECT_EQ(f.dropped("queue_full"), kEnded - 10);

  f.receiver->release_requests();
  exporter->flush(30s);
  EXPECT_EQ(f.receiver->spans().size(), 11u);  // the one in flight and the ten queued
}

TEST(OtlpExporterTests, ACollectorThatDoesNotAnswerInTimeFailsTheBatchAfterTheTimeout) {
  Fixture f;
  f.receiver->hold_requests();
  whizbang::OtlpExporterOptions options;
  options.timeout = 200ms;
  options.schedule_delay = 1h;
  options.max_export_attempts = 1;  // no retry (otlp_retry_test.cpp retries)
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(1));
  exporter->flush(30s);  // returns once the request has timed out
  EXPECT_EQ(exporter->stats().failed_requests, 1u);
  EXPECT_EQ(f.dropped("export_failed"), 1);
  EXPECT_EQ(f.receiver->requests(), 0u);
}

TEST(OtlpExporterTests, ShutdownPastItsTimeEndsARequestTheCollectorHolds) {
  Fixture f;
  f.receiver->hold_requests();
  whizbang::OtlpExporterOptions options;
  options.timeout = 1h;
  options.max_batch_size = 1;
  auto exporter = f.exporter(options);
  exporter->on_end(tracing_test::numbered_span(1));
  ASSERT_TRUE(f.receiver->wait_for_held(1, 30s));
  exporter->shutdown(10ms);  // returns although the collector never answers
  EXPECT_EQ(exporter->stats().dropped_failed, 1u);
  EXPECT_EQ(exporter->stats().exported, 0u);
}

TEST(OtlpExporterTests, ACollectorThatIsDownCostsSpansNotHandlingAndIsCounted) {
  Fixture f;
  whizbang::OtlpExporterOptions options;
  options.endpoint = closed_endpoint();
  options.max_batch_size = 4;
  options.max_queue_size = 8;
  options.schedule_delay = 1h;
  options.max_export_attempts = 1;
  auto exporter = f.exporter(options);
  constexpr int kEnded = 20;
  for (int i = 0; i < kEnded; ++i) exporter->on_end(tracing_test::numbered_span(i));
  exporter->flush(30s);
  const auto stats = exporter->stats();
  EXPECT_EQ(stats.exported, 0u);
  // Every span is accounted for: queued then failed, or dropped at the full queue.
  EXPECT_EQ(stats.dropped_failed + stats.dropped_full, static_cast<std::uint64_t>(kEnded));
  EXPECT_GT(stats.dropped_failed, 0u);
  EXPECT_EQ(f.dropped("export_failed"), static_cast<std::int64_t>(stats.dropped_failed));
  EXPECT_EQ(f.metrics->counter(names::kTraceExportMeter, names::kTraceExportFailures),
            static_cast<std::int64_t>(stats.failed_requests));
}

TEST(OtlpExporterTests, RefusedBatchesAreCountedAndTheirFailureLoggedOnceNotPerBatch) {
  Fixture f;
  f.receiver->respond_with(503);
  whizbang::OtlpExporterOptions options;
  options.max_batch_size = 1;
  options.schedule_delay = 1h;
  options.max_export_attempts = 1;
  auto exporter = f.exporter(options);
  for (int i = 0; i < 5; ++i) exporter->on_end(tracing_test::numbered_span(i));
  exporter->flush(30s);
  EXPECT_EQ(exporter->stats().failed_requests, 5u);
  EXPECT_EQ(f.dropped("export_failed"), 5);
  EXPECT_EQ(f.log.count("OTLP export to"), 1) << "repeats are held back by the rate limiter";
  EXPECT_EQ(f.log.count("HTTP 503"), 1);

  f.receiver->respond_with(200);
  exporter->on_end(tracing_test::numbered_span(7));
  exporter->flush(30s);
  EXPECT_EQ(f.receiver->spans().size(), 1u);
  EXPECT_EQ(f.log.count("succeeds again"), 1);
}

}  // namespace
}  // namespace otlp_exporter_test
