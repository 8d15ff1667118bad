#include "whizbang/workers/detached_worker.hpp"

namespace whizbang {

absl::StatusOr<DetachedCycleResult> DetachedWorker::run_once() {
  absl::StatusOr<std::vector<DetachedWork>> work = store_.claim_detached_work(options_.max_batch);
  if (!work.ok()) return work.status();
  DetachedCycleResult result;
  for (const DetachedWork& item : *work) {
    // A failure is recorded on the work itself (retry, dead letter) and logged as EventId 17.
    ++(invoker_.run_detached_work(item).ok() ? result.ran : result.failed);
  }
  // A full claim: more is likely waiting (worker_loop.hpp).
  if (work->size() >= options_.max_batch) loop_.notify();
  return result;
}

void DetachedWorker::start() {
  loop_.start([this] { return run_once().status(); }, "detached", options_.poll_interval,
              options_.logger);
}

}  // namespace whizbang
