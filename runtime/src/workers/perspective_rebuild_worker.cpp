#include "whizbang/workers/perspective_rebuild_worker.hpp"

#include <algorithm>
#include <map>

#include "fmt/format.h"

namespace whizbang {

PerspectiveRebuildWorker::PerspectiveRebuildWorker(PerspectiveRebuilder& rebuilder,
                                                   PerspectiveRebuildWorkerOptions options)
    : rebuilder_(rebuilder), options_(std::move(options)) {}

PerspectiveRebuildWorker::~PerspectiveRebuildWorker() { stop(); }

absl::StatusOr<std::optional<RebuildResult>> PerspectiveRebuildWorker::run_once() {
  RebuildOptions rebuild = options_.rebuild;
  std::shared_ptr<Metrics> metrics = options_.metrics;
  if (metrics) {
    // Counted per committed batch, so /metrics moves while a long rebuild runs.
    auto counted = std::make_shared<std::map<std::string, std::int64_t>>();
    rebuild.progress = [metrics, counted,
                        user = options_.rebuild.progress](const RebuildProgress& progress) {
      std::int64_t& seen = (*counted)[progress.perspective];
      if (progress.events_done > seen) {
        const MetricTag tags[] = {{metric_names::kPerspectiveTag, progress.perspective}};
        metrics->add(metric_names::kWorkCoordinatorMeter, metric_names::kPerspectiveRebuildEvents,
                     progress.events_done - seen, tags);
        seen = progress.events_done;
      }
      if (user) user(progress);
    };
  }
  absl::StatusOr<std::optional<RebuildResult>> result = rebuilder_.run_requested(rebuild);
  // A failed rebuild is on its row (status "failed", its error) and logged; the loop goes on
  // serving others. A store that is unavailable fails the cycle (the loop logs and retries).
  if (!result.ok() && !absl::IsUnavailable(result.status())) {
    return std::optional<RebuildResult>();
  }
  return result;
}

void PerspectiveRebuildWorker::start() {
  loop_.start([this] { return run_once().status(); }, "perspective rebuild", options_.poll_interval,
              options_.logger);
}

void PerspectiveRebuildWorker::stop() { loop_.stop(); }

absl::Status reconcile_perspective_versions(PerspectiveRebuilder& rebuilder, WorkStore& store,
                                            PerspectiveVersionPolicy policy,
                                            const RebuildOptions& options) {
  absl::StatusOr<std::vector<PerspectiveVersionRow>> rows = store.perspective_versions();
  if (!rows.ok()) return rows.status();
  std::map<std::string, std::uint32_t, std::less<>> stored;
  for (const PerspectiveVersionRow& row : *rows) stored[row.perspective_name] = row.version;
  absl::StatusOr<std::vector<PerspectiveRebuildRow>> rebuilds = store.perspective_rebuilds();
  if (!rebuilds.ok()) return rebuilds.status();
  auto requested = [&](std::string_view name) {
    return std::any_of(rebuilds->begin(), rebuilds->end(), [&](const PerspectiveRebuildRow& row) {
      return row.perspective_name == name && (row.status == "requested" || row.status == "running");
    });
  };
  for (const PerspectiveInfo& perspective : rebuilder.registry().perspectives()) {
    const auto found = stored.find(perspective.name);
    std::optional<std::uint32_t> built;
    if (found != stored.end()) {
      built = found->second;
    } else {
      absl::StatusOr<bool> has_models = store.has_perspective_models(perspective.name);
      if (!has_models.ok()) return has_models.status();
      if (*has_models) built = 1;  // built before versions were recorded
    }
    if (!built || *built == perspective.version) {
      if (found == stored.end()) {
        if (absl::Status status =
                store.set_perspective_version(perspective.name, perspective.version);
            !status.ok()) {
          return status;
        }
      }
      continue;
    }
    RebuildOptions rebuild = options;
    if (policy == PerspectiveVersionPolicy::Refuse) {
      if (!requested(perspective.name)) {
        return absl::FailedPreconditionError(fmt::format(
            "perspective {}: its stored models were built by version {}, this code is version "
            "{}; request a rebuild with `whizbang perspective rebuild --store <location> {} "
            "--no-wait` and start again (the host runs it before it starts), or start with "
            "HostOptions::perspective_version_policy = PerspectiveVersionPolicy::Rebuild",
            perspective.name, *built, perspective.version, perspective.name));
      }
      // Requested (the command above): its mode and streams win.
    } else {
      rebuild.mode = RebuildMode::BlueGreen;
      rebuild.streams.clear();
    }
    absl::StatusOr<RebuildResult> rebuilt = rebuilder.rebuild(perspective.name, rebuild);
    if (!rebuilt.ok()) return rebuilt.status();
  }
  return absl::OkStatus();
}

}  // namespace whizbang
