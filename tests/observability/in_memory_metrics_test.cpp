// InMemoryMetrics stays bounded whatever tags it is given (docs/guide/09-diagnostics.md,
// "Metrics"): 10,000 distinct message types once made 20,003 series and a 1.6 MB /metrics.
#include <gtest/gtest.h>
#include <whizbang/observability/metrics.hpp>

#include <string>

namespace whizbang {
namespace {

constexpr std::string_view kMeter = "Whizbang.WorkCoordinator";
constexpr std::string_view kName = "whizbang.work_coordinator.failed";

TEST(InMemoryMetricsTests, TenThousandDistinctTags_BoundedSeries_EveryOneCounted) {
  InMemoryMetrics metrics;
  for (int i = 0; i < 10'000; ++i) {
    const std::string type = "Mallory.Type" + std::to_string(i);
    const MetricTag tags[] = {{metric_names::kMessageTypeTag, type}};
    metrics.add(kMeter, kName, 1, tags);
  }
  EXPECT_EQ(metrics.series(kMeter, kName).size(), InMemoryMetrics::kMaxSeriesPerCounter + 1);
  EXPECT_EQ(metrics.counter(kMeter, kName), 10'000) << "nothing is lost, only pooled";
  EXPECT_EQ(metrics.counter(kMeter, kName,
                            {{metric_names::kMessageTypeTag, InMemoryMetrics::kOverflowTagValue}}),
            10'000 - static_cast<std::int64_t>(InMemoryMetrics::kMaxSeriesPerCounter));
}

TEST(InMemoryMetricsTests, SeriesSeenBeforeTheBound_KeepCounting) {
  InMemoryMetrics metrics;
  const MetricTag first[] = {{metric_names::kMessageTypeTag, "shop::OrderCreated"}};
  metrics.add(kMeter, kName, 1, first);
  for (std::size_t i = 0; i < 2 * InMemoryMetrics::kMaxSeriesPerCounter; ++i) {
    const std::string type = "t" + std::to_string(i);
    const MetricTag tags[] = {{metric_names::kMessageTypeTag, type}};
    metrics.add(kMeter, kName, 1, tags);
  }
  metrics.add(kMeter, kName, 1, first);
  EXPECT_EQ(metrics.counter(kMeter, kName, {{metric_names::kMessageTypeTag, "shop::OrderCreated"}}),
            2);
}

}  // namespace
}  // namespace whizbang
