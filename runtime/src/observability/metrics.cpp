#include "whizbang/observability/metrics.hpp"

#include <algorithm>

namespace whizbang {

InMemoryMetrics::Key InMemoryMetrics::key_of(std::string_view meter, std::string_view name,
                                             std::span<const MetricTag> tags) {
  Key key{std::string(meter), std::string(name), {}};
  key.tags.reserve(tags.size());
  for (const MetricTag& tag : tags) key.tags.emplace_back(tag.key, tag.value);
  std::sort(key.tags.begin(), key.tags.end());
  return key;
}

void InMemoryMetrics::add(std::string_view meter, std::string_view name, std::int64_t delta,
                          std::span<const MetricTag> tags) {
  Key key = key_of(meter, name, tags);
  std::lock_guard lock(mutex_);
  if (auto found = counters_.find(key); found != counters_.end()) {
    found->second += delta;
    return;
  }
  std::size_t& series = series_counts_[{key.meter, key.name}];
  if (series >= kMaxSeriesPerCounter && !key.tags.empty()) {
    for (auto& [tag, value] : key.tags) value = std::string(kOverflowTagValue);
    if (auto found = counters_.find(key); found != counters_.end()) {
      found->second += delta;
      return;
    }
  }
  ++series;
  counters_.emplace(std::move(key), delta);
}

void InMemoryMetrics::set(std::string_view meter, std::string_view name, std::int64_t value,
                          std::span<const MetricTag> tags) {
  Key key = key_of(meter, name, tags);
  std::lock_guard lock(mutex_);
  if (auto found = gauges_.find(key); found != gauges_.end()) {
    found->second = value;
    return;
  }
  // A level cannot be summed under "other" as a count can: past the bound it is not kept.
  std::size_t& series = gauge_series_counts_[{key.meter, key.name}];
  if (series >= kMaxSeriesPerCounter) return;
  ++series;
  gauges_.emplace(std::move(key), value);
}

std::optional<std::int64_t> InMemoryMetrics::gauge(std::string_view meter, std::string_view name,
                                                   std::initializer_list<MetricTag> tags) const {
  const Key key = key_of(meter, name, {tags.begin(), tags.size()});
  std::lock_guard lock(mutex_);
  if (auto found = gauges_.find(key); found != gauges_.end()) return found->second;
  return std::nullopt;
}

std::vector<InMemoryMetrics::Sample> InMemoryMetrics::gauge_snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<Sample> samples;
  samples.reserve(gauges_.size());
  for (const auto& [key, value] : gauges_)
    samples.push_back({key.meter, key.name, key.tags, value});
  return samples;
}

std::int64_t InMemoryMetrics::counter(std::string_view meter, std::string_view name,
                                      std::initializer_list<MetricTag> tags) const {
  std::lock_guard lock(mutex_);
  std::int64_t total = 0;
  for (const auto& [key, value] : counters_) {
    if (key.meter != meter || key.name != name) continue;
    const bool matches = std::all_of(tags.begin(), tags.end(), [&](const MetricTag& wanted) {
      return std::any_of(key.tags.begin(), key.tags.end(), [&](const auto& have) {
        return have.first == wanted.key && have.second == wanted.value;
      });
    });
    if (matches) total += value;
  }
  return total;
}

std::map<std::string, std::int64_t> InMemoryMetrics::series(std::string_view meter,
                                                            std::string_view name) const {
  std::lock_guard lock(mutex_);
  std::map<std::string, std::int64_t> result;
  for (const auto& [key, value] : counters_) {
    if (key.meter != meter || key.name != name) continue;
    std::string rendered;
    for (const auto& [tag, tag_value] : key.tags) {
      if (!rendered.empty()) rendered += ',';
      rendered += tag + "=" + tag_value;
    }
    result[rendered] += value;
  }
  return result;
}

std::vector<InMemoryMetrics::Sample> InMemoryMetrics::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<Sample> samples;
  samples.reserve(counters_.size());
  for (const auto& [key, value] : counters_) {
    samples.push_back({key.meter, key.name, key.tags, value});
  }
  return samples;
}

}  // namespace whizbang
