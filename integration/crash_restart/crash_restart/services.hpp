// Both services of the harness in one process: SQLite stores in a data directory, joined by an
// in-process transport. A worker process opens them, does its part and may be killed at any
// instruction; the next incarnation opens the same files.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "whizbang/host/service_host.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/transport/in_process_transport.hpp"

namespace crash_restart {

class Services {
 public:
  // `incarnation` numbers the processes that opened the files. Each sees the clock an hour
  // later than the one before, so the leases a killed predecessor held have lapsed (the store's
  // own recovery path) without the harness waiting out real lease durations. `lease` is how long
  // the rows this process stores stay leased to it.
  static absl::StatusOr<std::unique_ptr<Services>> open(
      const std::filesystem::path& data_dir, int incarnation,
      std::chrono::seconds lease = std::chrono::seconds(300));

  whizbang::ServiceHost& sales() { return *sales_.host; }
  whizbang::ServiceHost& fulfilment() { return *fulfilment_.host; }

  // One cycle of every worker of both services; true when none of them moved anything.
  absl::StatusOr<bool> run_cycle();

 private:
  struct Service {
    std::unique_ptr<whizbang::WorkStore> store;
    whizbang::ServiceRegistry dependencies;
    std::unique_ptr<whizbang::ServiceHost> host;
  };

  absl::Status open_service(Service& service, const std::string& name,
                            const whizbang::Registry& registry,
                            const std::filesystem::path& data_dir, int incarnation,
                            std::chrono::seconds lease);

  whizbang::InProcessTransport transport_;
  Service sales_;
  Service fulfilment_;
};

}  // namespace crash_restart
