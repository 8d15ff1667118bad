// The perspectives' gauges for /metrics: lag, version and rebuild progress, read from the store.
#include <map>
#include <string>

#include "fmt/format.h"
#include "whizbang/workers/perspective_rebuild_worker.hpp"

namespace whizbang {
namespace {

// A label value in the exposition format: backslash, double quote and newline escaped.
std::string label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

struct Gauge {
  std::string_view name;
  std::string_view help;
  std::map<std::string, double> values;  // by perspective
};

void append(std::string& text, const Gauge& gauge) {
  if (gauge.values.empty()) return;
  text += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", gauge.name, gauge.help, gauge.name);
  for (const auto& [perspective, value] : gauge.values) {
    text += fmt::format("{}{{perspective=\"{}\"}} {}\n", gauge.name, label(perspective), value);
  }
}

}  // namespace

absl::StatusOr<std::string> perspective_prometheus_text(WorkStore& store) {
  auto lag = store.perspective_lag();
  if (!lag.ok()) return lag.status();
  auto versions = store.perspective_versions();
  if (!versions.ok()) return versions.status();
  auto rebuilds = store.perspective_rebuilds();
  if (!rebuilds.ok()) return rebuilds.status();
  Gauge pending{"whizbang_perspective_lag_events", "perspective events not applied yet", {}};
  Gauge oldest{"whizbang_perspective_lag_oldest_seconds",
               "age of the oldest perspective event not applied yet",
               {}};
  Gauge version{"whizbang_perspective_version", "the version that built the stored models", {}};
  Gauge ratio{"whizbang_perspective_rebuild_progress_ratio",
              "the last rebuild's events done / total (1 when done)",
              {}};
  Gauge rate{"whizbang_perspective_rebuild_events_per_second", "the last rebuild's rate", {}};
  const TimePoint now = std::chrono::system_clock::now();
  for (const PerspectiveVersionRow& row : *versions) {
    version.values[row.perspective_name] = row.version;
    pending.values[row.perspective_name] = 0;  // known perspectives report 0, not nothing
  }
  for (const PerspectiveLag& row : *lag) {
    pending.values[row.perspective_name] = static_cast<double>(row.pending_events);
    if (row.oldest_pending) {
      oldest.values[row.perspective_name] =
          std::chrono::duration<double>(now - *row.oldest_pending).count();
    }
  }
  for (const PerspectiveRebuildRow& row : *rebuilds) {
    ratio.values[row.perspective_name] =
        row.status == "done" ? 1.0
        : row.events_total > 0
            ? static_cast<double>(row.events_done) / static_cast<double>(row.events_total)
            : 0.0;
    rate.values[row.perspective_name] = row.events_per_second;
  }
  std::string text;
  for (const Gauge* gauge : {&pending, &oldest, &version, &ratio, &rate}) append(text, *gauge);
  return text;
}

}  // namespace whizbang
