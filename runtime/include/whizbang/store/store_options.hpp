// StoreOptions: what every WorkStore implementation is built with.
//
//   whizbang::StoreOptions options;
//   options.instance = {"orders", whizbang::MessageId::mint().uuid(), "host-1", ::getpid()};
//   options.metrics = metrics;          // optional: emission-dedup counter
//   options.logger = logger;            // optional: Debug line per deduplicated row
//   options.now = [&] { return clock.now(); };   // tests: an injectable clock
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "spdlog/logger.h"
#include "whizbang/envelope.hpp"
#include "whizbang/metrics.hpp"

namespace whizbang {

struct StoreOptions {
  // This process's instance: owner of the leases it takes, heartbeat row in
  // wh_service_instances. A nil instance_id is replaced by a fresh one when the store opens.
  ServiceInstance instance;
  // How long a claimed or freshly stored row stays leased to this instance.
  std::chrono::seconds lease_duration{300};
  // Time source; defaults to the system clock.
  std::function<TimePoint()> now;
  std::shared_ptr<Metrics> metrics;
  std::shared_ptr<spdlog::logger> logger;
};

}  // namespace whizbang
