// The soak's pass/fail rules over what it sampled (docs/guide/14-running-services.md, "Soak"):
//
// - Growth, per process incarnation (a restarted process starts a new series): the samples
//   of its first `warm_up` are left out; of the rest, the median of the last three against the
//   median of the first three. More than `limit` (10%) higher, in RSS or in open fds, fails.
//   An incarnation with fewer than six samples after its warm-up is not judged.
// - Backlog: the rows owed at each report (after the first) rose three reports in a row and the
//   last is more than ten seconds of the offered rate: the work falls behind a rate it should
//   carry. (Work that never finishes at all fails the drain at the end.)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "service_processes.hpp"

namespace soak {

struct GrowthVerdict {
  bool judged = false;  // enough samples after the warm-up
  bool grew = false;
  double rss_before_kib = 0;
  double rss_after_kib = 0;
  double fds_before = 0;
  double fds_after = 0;
  std::string summary;  // one line for the report
};

GrowthVerdict judge_growth(const Incarnation& incarnation, double warm_up_s, double limit);

// `backlogs`: the rows owed at each report, in order. A reason to fail, or nothing.
std::optional<std::string> judge_backlog(const std::vector<std::int64_t>& backlogs, double rate);

}  // namespace soak
