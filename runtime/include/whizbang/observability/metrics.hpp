// Metrics: counters the runtime reports, behind an interface so hosts can forward them to
// OpenTelemetry, Prometheus or anything else, and tests can read them back.
//
// Names follow the reference implementation (meter `Whizbang.WorkCoordinator`, counter
// `whizbang.work_coordinator.outbox.emission_deduplicated`, tag `message_type`) so dashboards
// written for it keep working. Every component takes a `std::shared_ptr<Metrics>`; null means
// "not recorded".
//
//   auto metrics = std::make_shared<whizbang::InMemoryMetrics>();
//   whizbang::StoreOptions options;
//   options.metrics = metrics;
//   ...
//   metrics->counter(whizbang::metric_names::kWorkCoordinatorMeter,
//                    whizbang::metric_names::kOutboxEmissionDeduplicated,
//                    {{"message_type", "shop::OrderCreated"}});   // -> 1
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace whizbang {

namespace metric_names {
inline constexpr std::string_view kWorkCoordinatorMeter = "Whizbang.WorkCoordinator";
// One per outbox row that store_outbox_messages found already present (was_newly_created=false).
// A sustained non-zero rate means handlings are re-dispatched after their emissions committed.
inline constexpr std::string_view kOutboxEmissionDeduplicated =
    "whizbang.work_coordinator.outbox.emission_deduplicated";
// One per failed handling, publish or perspective apply (the row is retried or dead-lettered).
inline constexpr std::string_view kWorkFailed = "whizbang.work_coordinator.failed";
// One per row dead-lettered: retried max_attempts times, unreadable, or failed permanently.
inline constexpr std::string_view kWorkDeadLettered = "whizbang.work_coordinator.dead_lettered";
// One per inbox row whose handling committed (its receptors ran and the row is done), counted by
// the inbox worker after the handling's transaction committed: a rolled-back handling is not
// counted. With kOutboxPublished, the throughput a runner's /api/v1/overview reports
// (docs/guide/19-operating-services.md).
inline constexpr std::string_view kInboxHandled = "whizbang.work_coordinator.inbox.handled";
// One per outbox row published (to its destination, or to the event store only), counted by the
// drain worker once the store recorded the row's completion.
inline constexpr std::string_view kOutboxPublished = "whizbang.work_coordinator.outbox.published";
// One per store call that waited for another thread's transaction of the same store object. A
// high rate means threads queue on the store (one transaction at a time per store).
inline constexpr std::string_view kTransactionWaits = "whizbang.work_coordinator.transaction_waits";
// One per delivered message the inbox refused at its door, tagged with the kind of refusal
// (`reason`: invalid_text, invalid_id, too_large, unknown_type, malformed, id_mismatch,
// type_mismatch, over_limits, signature, unstorable; docs/guide/16-security.md).
inline constexpr std::string_view kInboxDeliveryRefused =
    "whizbang.work_coordinator.inbox.delivery_refused";
// One per delivered message dropped because the inbox had received it before.
inline constexpr std::string_view kInboxDuplicateDropped =
    "whizbang.work_coordinator.inbox.duplicate_dropped";
// One per delivered event this service published itself, dropped before it was stored: its
// receptors ran when it was published (HostOptions::own_events, docs/guide/13-rabbitmq.md).
inline constexpr std::string_view kInboxOwnEventDropped =
    "whizbang.work_coordinator.inbox.own_event_dropped";
// One per delivered batch the store did not take (it comes again); a rising rate is a stuck
// subscription (ServiceRunner's /readyz reports it).
inline constexpr std::string_view kInboxDeliveryStoreFailed =
    "whizbang.work_coordinator.inbox.delivery_store_failed";
// One per rewind: an event reached a perspective behind one of its stream already applied (it
// occurred earlier), and the stream's model was re-applied in order. Tagged `perspective`.
inline constexpr std::string_view kPerspectiveRewinds = "whizbang.perspective.rewinds";
// Events a rebuild applied (counter, tag `perspective`).
inline constexpr std::string_view kPerspectiveRebuildEvents = "whizbang.perspective.rebuild.events";
// The OTLP exporter's counters (meter `Whizbang.Tracing`, docs/guide/18-tracing.md): spans sent
// to the collector; spans dropped, tagged `reason` (queue_full: the bounded queue was full when a
// span ended; export_failed: the collector refused the batch or did not answer in time); batches
// that failed.
inline constexpr std::string_view kTraceExportMeter = "Whizbang.Tracing";
inline constexpr std::string_view kTraceSpansExported = "whizbang.tracing.export.spans_exported";
inline constexpr std::string_view kTraceSpansDropped = "whizbang.tracing.export.spans_dropped";
inline constexpr std::string_view kTraceExportFailures = "whizbang.tracing.export.failures";
inline constexpr std::string_view kPerspectiveTag = "perspective";
inline constexpr std::string_view kMessageTypeTag = "message_type";
inline constexpr std::string_view kReasonTag = "reason";
}  // namespace metric_names

struct MetricTag {
  std::string_view key;
  std::string_view value;
};

class Metrics {
 public:
  virtual ~Metrics() = default;
  // Adds `delta` to the counter `name` of `meter` for this combination of tags.
  virtual void add(std::string_view meter, std::string_view name, std::int64_t delta,
                   std::span<const MetricTag> tags) = 0;
  // Sets the gauge `name` of `meter` for this combination of tags to `value` (a state, a level:
  // a circuit breaker's, docs/guide/11-failures.md). Ignored unless the implementation keeps
  // gauges.
  virtual void set(std::string_view /*meter*/, std::string_view /*name*/, std::int64_t /*value*/,
                   std::span<const MetricTag> /*tags*/) {}
};

// Keeps every counter in memory. Thread-safe.
//
// Bounded: a counter keeps at most kMaxSeriesPerCounter distinct tag sets. Tags come from the
// registry (message types a service knows, refusal kinds), never from what a sender writes, so
// the bound is a backstop: past it, a new tag set is counted under tag values "other" instead of
// adding a series, and memory and /metrics stay bounded whatever arrives.
class InMemoryMetrics final : public Metrics {
 public:
  static constexpr std::size_t kMaxSeriesPerCounter = 1000;
  static constexpr std::string_view kOverflowTagValue = "other";

  void add(std::string_view meter, std::string_view name, std::int64_t delta,
           std::span<const MetricTag> tags) override;
  // Gauges are bounded like counters; past the bound a new tag set is not kept.
  void set(std::string_view meter, std::string_view name, std::int64_t value,
           std::span<const MetricTag> tags) override;

  // The sum of every series of the counter whose tags include all of `tags` (no tags: the
  // counter's total). 0 for a counter never added to.
  std::int64_t counter(std::string_view meter, std::string_view name,
                       std::initializer_list<MetricTag> tags = {}) const;

  // Every series of a counter: tags rendered "k=v,k=v" (sorted by key) -> value.
  std::map<std::string, std::int64_t> series(std::string_view meter, std::string_view name) const;

  // Every series of every counter, ordered by meter, name and tags (for exporters).
  struct Sample {
    std::string meter;
    std::string name;
    std::vector<std::pair<std::string, std::string>> tags;  // sorted by key
    std::int64_t value = 0;
  };
  std::vector<Sample> snapshot() const;

  // A gauge's value for exactly these tags; nullopt when never set.
  std::optional<std::int64_t> gauge(std::string_view meter, std::string_view name,
                                    std::initializer_list<MetricTag> tags = {}) const;
  // Every series of every gauge, ordered like snapshot().
  std::vector<Sample> gauge_snapshot() const;

 private:
  using Tags = std::vector<std::pair<std::string, std::string>>;
  struct Key {
    std::string meter;
    std::string name;
    Tags tags;  // sorted by key
    friend auto operator<=>(const Key&, const Key&) = default;
  };
  // The series `tags` name, tags sorted: the same key however the caller ordered them.
  static Key key_of(std::string_view meter, std::string_view name, std::span<const MetricTag> tags);

  mutable std::mutex mutex_;
  std::map<Key, std::int64_t> counters_;
  // Series per (meter, name), for the bound.
  std::map<std::pair<std::string, std::string>, std::size_t> series_counts_;
  std::map<Key, std::int64_t> gauges_;
  std::map<std::pair<std::string, std::string>, std::size_t> gauge_series_counts_;
};

}  // namespace whizbang
