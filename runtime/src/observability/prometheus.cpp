#include "whizbang/observability/prometheus.hpp"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "whizbang/observability/printable.hpp"

namespace whizbang {
namespace {

// A metric or label name: every character outside [a-zA-Z0-9_] becomes '_', and a name that
// would start with a digit (or be empty) gets a leading '_'.
std::string sanitized(std::string_view text) {
  std::string name;
  name.reserve(text.size() + 1);
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    name.push_back(keep ? c : '_');
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    name.insert(name.begin(), '_');
  }
  return name;
}

// Label values and HELP text: first printable() (valid UTF-8; controls and ill-formed bytes as
// the visible text \xNN), then the format's escapes: backslash (that of every \xNN too) and
// newline, and in a label value the double quote.
std::string escaped(std::string_view value, bool label_value) {
  const std::string shown = printable(value);
  std::string out;
  out.reserve(shown.size() + 8);
  for (char c : shown) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"' && label_value) {
      out += "\\\"";
    } else if (c == '\n') {  // printable() leaves none; kept so this function stands alone
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

namespace {

// Every sample of one kind, each metric under its HELP and TYPE lines. A counter's name ends in
// "_total"; a gauge's is its dotted name alone (whizbang_circuit_breaker_state).
void append_samples(std::string& text, const std::vector<InMemoryMetrics::Sample>& samples,
                    std::string_view type) {
  std::string current;
  for (const InMemoryMetrics::Sample& sample : samples) {
    const std::string name =
        type == "counter" ? prometheus_metric_name(sample.name) : sanitized(sample.name);
    if (name != current) {
      absl::StrAppend(&text, "# HELP ", name, " ",
                      escaped(absl::StrCat(sample.name, " (meter ", sample.meter, ")"), false),
                      "\n", "# TYPE ", name, " ", std::string(type), "\n");
      current = name;
    }
    text += name;
    if (!sample.tags.empty()) {
      text += '{';
      for (std::size_t i = 0; i < sample.tags.size(); ++i) {
        if (i > 0) text += ',';
        absl::StrAppend(&text, sanitized(sample.tags[i].first), "=\"",
                        escaped(sample.tags[i].second, true), "\"");
      }
      text += '}';
    }
    absl::StrAppend(&text, " ", sample.value, "\n");
  }
}

}  // namespace

std::string prometheus_text(const InMemoryMetrics& metrics,
                            const std::vector<PrometheusGauge>& gauges) {
  std::string text;
  for (const PrometheusGauge& gauge : gauges) {
    const std::string name = sanitized(gauge.name);
    absl::StrAppend(&text, "# HELP ", name, " ", escaped(gauge.help, false), "\n# TYPE ", name,
                    " gauge\n", name, " ", gauge.value, "\n");
  }
  append_samples(text, metrics.snapshot(), "counter");
  append_samples(text, metrics.gauge_snapshot(), "gauge");
  return text;
}

}  // namespace whizbang
