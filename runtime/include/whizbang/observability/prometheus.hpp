// Prometheus text exposition (format 0.0.4) of the runtime's counters, for a /metrics endpoint.
//
//   whizbang_work_coordinator_outbox_emission_deduplicated_total{message_type="shop::X"} 3
//
// A counter's name is its dotted name with every character outside [a-zA-Z0-9_] replaced by
// '_' and "_total" appended; tags become labels (keys sanitized the same way, values escaped).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "whizbang/observability/metrics.hpp"

namespace whizbang {

// A gauge the caller adds to the exposition (readiness, for instance).
struct PrometheusGauge {
  std::string name;  // already a Prometheus name
  std::string help;
  double value = 0;
};

std::string prometheus_metric_name(std::string_view dotted_name);

std::string prometheus_text(const InMemoryMetrics& metrics,
                            const std::vector<PrometheusGauge>& gauges = {});

}  // namespace whizbang
