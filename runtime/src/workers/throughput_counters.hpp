// The throughput counters (docs/guide/19-operating-services.md): handlings and publications,
// counted by the workers once their commit succeeded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "whizbang/observability/metrics.hpp"

namespace whizbang {

// +count on whizbang.work_coordinator.inbox.handled{message_type}: handlings that committed.
inline void count_handled(const std::shared_ptr<Metrics>& metrics, std::string_view message_type,
                          std::int64_t count = 1) {
  if (!metrics) return;
  const MetricTag tags[] = {{metric_names::kMessageTypeTag, message_type}};
  metrics->add(metric_names::kWorkCoordinatorMeter, metric_names::kInboxHandled, count, tags);
}

// Counts `types` (one entry per message) on `counter`, one add per run of equal types: a batch is
// mostly one type, and each add takes the metrics' lock and looks its series up.
inline void count_by_type(const std::shared_ptr<Metrics>& metrics, std::string_view counter,
                          const std::vector<std::string>& types) {
  if (!metrics) return;
  for (std::size_t first = 0; first < types.size();) {
    std::size_t end = first + 1;
    while (end < types.size() && types[end] == types[first]) ++end;
    const MetricTag tags[] = {{metric_names::kMessageTypeTag, types[first]}};
    metrics->add(metric_names::kWorkCoordinatorMeter, counter,
                 static_cast<std::int64_t>(end - first), tags);
    first = end;
  }
}

}  // namespace whizbang
