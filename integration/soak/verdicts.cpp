#include "verdicts.hpp"

#include <algorithm>
#include <cstdio>

namespace soak {
namespace {

constexpr std::size_t kEnds = 3;  // samples at each end of the judged series

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

GrowthVerdict judge_growth(const Incarnation& incarnation, double warm_up_s, double limit) {
  GrowthVerdict verdict;
  std::vector<double> rss;
  std::vector<double> fds;
  for (const ProcessSample& sample : incarnation.samples) {
    if (sample.at_s - incarnation.started_s < warm_up_s || sample.rss_kib < 0 || sample.fds < 0) {
      continue;
    }
    rss.push_back(static_cast<double>(sample.rss_kib));
    fds.push_back(sample.fds);
  }
  char line[256];
  if (rss.size() < 2 * kEnds) {
    std::snprintf(line, sizeof line, "not judged: %zu samples after the warm-up (6 needed)",
                  rss.size());
    verdict.summary = line;
    return verdict;
  }
  verdict.judged = true;
  const auto first = [](const std::vector<double>& series) {
    return median_of({series.begin(), series.begin() + kEnds});
  };
  const auto last = [](const std::vector<double>& series) {
    return median_of({series.end() - kEnds, series.end()});
  };
  verdict.rss_before_kib = first(rss);
  verdict.rss_after_kib = last(rss);
  verdict.fds_before = first(fds);
  verdict.fds_after = last(fds);
  const double rss_growth = verdict.rss_after_kib / verdict.rss_before_kib - 1;
  const double fds_growth = verdict.fds_after / verdict.fds_before - 1;
  verdict.grew = rss_growth > limit || fds_growth > limit;
  std::snprintf(line, sizeof line, "RSS %.1f -> %.1f MiB (%+.1f%%), fds %.0f -> %.0f (%+.1f%%)%s",
                verdict.rss_before_kib / 1024, verdict.rss_after_kib / 1024, rss_growth * 100,
                verdict.fds_before, verdict.fds_after, fds_growth * 100,
                verdict.grew ? ": GREW" : "");
  verdict.summary = line;
  return verdict;
}

std::optional<std::string> judge_backlog(const std::vector<std::int64_t>& backlogs, double rate) {
  // The first report is the system's warm-up: it is left out.
  if (backlogs.size() < 2 + kEnds) return std::nullopt;
  const std::size_t end = backlogs.size();
  for (std::size_t i = end - kEnds; i < end; ++i) {
    if (backlogs[i] <= backlogs[i - 1]) return std::nullopt;
  }
  if (static_cast<double>(backlogs.back()) <= 10 * rate) return std::nullopt;
  return "the backlog grew at each of the last 3 reports (" +
         std::to_string(backlogs[end - kEnds - 1]) + " -> " + std::to_string(backlogs.back()) +
         " rows owed): the services fall behind the offered rate";
}

}  // namespace soak
