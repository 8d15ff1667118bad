// PerspectiveRebuildWorker: serves rebuild requests (wh_perspective_rebuilds rows the CLI's
// `whizbang perspective rebuild` records) in the process that has the perspectives' code, and
// resumes a rebuild whose instance died once its lease lapsed. ServiceHost runs one.
//
// reconcile_perspective_versions: what a host does at start with each perspective's version
// (PerspectiveInfo::version, [[whizbang::version(N)]]) against the version its stored models were
// built by (wh_perspective_versions; models without a row count as version 1).
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/workers/perspective_rebuilder.hpp"
#include "whizbang/workers/worker_loop.hpp"

namespace whizbang {

struct PerspectiveRebuildWorkerOptions {
  std::chrono::milliseconds poll_interval{1000};
  // Batch size and lease of the rebuilds it runs (mode and streams come from the request).
  RebuildOptions rebuild;
  std::shared_ptr<Metrics> metrics;
  std::shared_ptr<spdlog::logger> logger;
};

class PerspectiveRebuildWorker {
 public:
  PerspectiveRebuildWorker(PerspectiveRebuilder& rebuilder,
                           PerspectiveRebuildWorkerOptions options = {});
  ~PerspectiveRebuildWorker();
  PerspectiveRebuildWorker(const PerspectiveRebuildWorker&) = delete;
  PerspectiveRebuildWorker& operator=(const PerspectiveRebuildWorker&) = delete;

  // Runs one requested rebuild, if any. A failed rebuild is recorded on its row (status
  // "failed", the error) and is not an error of the cycle.
  absl::StatusOr<std::optional<RebuildResult>> run_once();
  void start();
  void stop();
  const WorkerLoop& loop() const { return loop_; }

 private:
  PerspectiveRebuilder& rebuilder_;
  PerspectiveRebuildWorkerOptions options_;
  WorkerLoop loop_;
};

enum class PerspectiveVersionPolicy : std::uint8_t {
  // FailedPrecondition naming the perspective, both versions and the CLI command to run.
  Refuse = 0,
  // Rebuilds the perspective blue-green before the host starts.
  Rebuild = 1,
};

// For each perspective of the rebuilder's registry: a perspective with no models and no version
// row gets its version recorded; one whose stored version differs is refused or rebuilt.
absl::Status reconcile_perspective_versions(PerspectiveRebuilder& rebuilder, WorkStore& store,
                                            PerspectiveVersionPolicy policy,
                                            const RebuildOptions& options = {});

// Prometheus text of the perspectives' figures, for a runner's /metrics (read from `store`):
//   whizbang_perspective_lag_events{perspective="..."}           pending perspective events
//   whizbang_perspective_lag_oldest_seconds{perspective="..."}   age of the oldest pending one
//   whizbang_perspective_version{perspective="..."}              version that built the models
//   whizbang_perspective_rebuild_progress_ratio{perspective="..."}  events done / total
//   whizbang_perspective_rebuild_events_per_second{perspective="..."}
// (The rebuild's event counter, whizbang_perspective_rebuild_events_total, comes from Metrics.)
absl::StatusOr<std::string> perspective_prometheus_text(WorkStore& store);

}  // namespace whizbang
