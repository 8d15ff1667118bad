// The outbox drain worker's source service id, stamped on the envelopes it publishes: looked up
// at start-up and, while still unknown, again before each batch.
#include <exception>
#include <string>

#include "whizbang/workers/outbox_drain_worker.hpp"

namespace whizbang {
namespace {

// The lookup's answer, or the reason it has none.
struct Lookup {
  Uuid id;
  std::string error;
};

Lookup run_lookup(const std::function<Uuid()>& lookup) {
  try {
    return {lookup(), {}};
  } catch (const std::exception& e) {
    return {{}, e.what()};
  } catch (...) {
    return {{}, "unknown exception"};
  }
}

}  // namespace

Uuid OutboxDrainWorker::source_service_id() const {
  std::lock_guard lock(id_mutex_);
  return source_service_id_;
}

void OutboxDrainWorker::resolve_at_startup() {
  if (!options_.local_service_id_lookup) return;
  ++lookup_attempts_;
  Lookup answer = run_lookup(options_.local_service_id_lookup);
  if (!answer.error.empty()) {
    log(options_.logger, spdlog::level::warn, log_events::kSourceServiceIdLookupFailedAtStartup,
        "local service identity lookup failed at start-up ({}); envelopes publish with an empty "
        "SourceServiceId until a later batch resolves it",
        answer.error);
    return;
  }
  if (answer.id.is_nil()) {
    log(options_.logger, spdlog::level::warn, log_events::kSourceServiceIdEmptyAtStartup,
        "local service identity is empty at start-up; envelopes publish with an empty "
        "SourceServiceId until a later batch resolves it");
    return;
  }
  std::lock_guard lock(id_mutex_);
  source_service_id_ = answer.id;
  log(options_.logger, spdlog::level::info, log_events::kSourceServiceIdResolved,
      "local service identity resolved to {}", answer.id);
}

void OutboxDrainWorker::resolve_before_batch() {
  if (!options_.local_service_id_lookup) return;
  {
    std::lock_guard lock(id_mutex_);
    if (!source_service_id_.is_nil()) return;
  }
  const int attempt = ++lookup_attempts_;
  Lookup answer = run_lookup(options_.local_service_id_lookup);
  if (!answer.id.is_nil() && answer.error.empty()) {
    std::lock_guard lock(id_mutex_);
    source_service_id_ = answer.id;
    log(options_.logger, spdlog::level::info, log_events::kSourceServiceIdResolved,
        "local service identity resolved to {}", answer.id);
    return;
  }
  log(options_.logger, spdlog::level::debug, log_events::kSourceServiceIdRetry,
      "local service identity still unresolved (lookup attempt {}: {}); retrying before the "
      "next batch",
      attempt, answer.error.empty() ? std::string("empty id") : answer.error);
}

}  // namespace whizbang
