#include "whizbang/observability/prometheus.hpp"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace whizbang {
namespace {

std::string sanitized(std::string_view text) {
  std::string name;
  name.reserve(text.size());
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    name.push_back(keep ? c : '_');
  }
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    name.insert(name.begin(), '_');
  }
  return name;
}

// Label values: backslash, double quote and newline are escaped.
std::string escaped(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string prometheus_metric_name(std::string_view dotted_name) {
  return sanitized(dotted_name) + "_total";
}

std::string prometheus_text(const InMemoryMetrics& metrics,
                            const std::vector<PrometheusGauge>& gauges) {
  std::string text;
  for (const PrometheusGauge& gauge : gauges) {
    absl::StrAppend(&text, "# HELP ", gauge.name, " ", gauge.help, "\n# TYPE ", gauge.name,
                    " gauge\n", gauge.name, " ", gauge.value, "\n");
  }
  std::string current;
  for (const InMemoryMetrics::Sample& sample : metrics.snapshot()) {
    const std::string name = prometheus_metric_name(sample.name);
    if (name != current) {
      absl::StrAppend(&text, "# HELP ", name, " ", sample.name, " (meter ", sample.meter, ")\n",
                      "# TYPE ", name, " counter\n");
      current = name;
    }
    text += name;
    if (!sample.tags.empty()) {
      text += '{';
      for (std::size_t i = 0; i < sample.tags.size(); ++i) {
        if (i > 0) text += ',';
        absl::StrAppend(&text, sanitized(sample.tags[i].first), "=\"",
                        escaped(sample.tags[i].second), "\"");
      }
      text += '}';
    }
    absl::StrAppend(&text, " ", sample.value, "\n");
  }
  return text;
}

}  // namespace whizbang
