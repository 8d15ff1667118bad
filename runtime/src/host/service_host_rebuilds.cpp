// ServiceHost: perspective rebuilds: the rebuilder, the worker that serves rebuild requests, and
// the start-up check of each perspective's version against its stored models'.
#include "whizbang/host/service_host.hpp"

namespace whizbang {

absl::Status ServiceHost::build_rebuilds(const ServiceRegistry& services) {
  if (registry_.perspectives().empty()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<PerspectiveRebuilder>> rebuilder = PerspectiveRebuilder::create(
      registry_, services, *options_.store, options_.logger, durable_invoker_.get());
  if (!rebuilder.ok()) return rebuilder.status();
  rebuilder_ = *std::move(rebuilder);
  if (absl::Status status = reconcile_perspective_versions(*rebuilder_, *options_.store,
                                                           options_.perspective_version_policy,
                                                           options_.perspective_rebuild);
      !status.ok()) {
    return status;
  }
  PerspectiveRebuildWorkerOptions worker_options;
  worker_options.poll_interval = options_.poll_interval;
  worker_options.rebuild = options_.perspective_rebuild;
  worker_options.metrics = options_.metrics;
  worker_options.logger = options_.logger;
  rebuild_worker_ = std::make_unique<PerspectiveRebuildWorker>(*rebuilder_, worker_options);
  return absl::OkStatus();
}

}  // namespace whizbang
