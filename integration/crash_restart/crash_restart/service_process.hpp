// One service of the harness as a process of its own: its store (a SQLite file, or where
// WHIZBANG_CRASH_STORES says: crash_restart/store_location.hpp), a transport to the other
// service (the store transport, or RabbitMQ when an AMQP URL is given), a thread-pool executor
// for its Detached stages, and a started host (worker threads, the default publish mode).
// Several processes of one service share its store.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "crash_restart/store_transport.hpp"
#include "whizbang/host/service_host.hpp"
#include "whizbang/lifecycle/executor.hpp"
#include "whizbang/store/work_store.hpp"

namespace crash_restart {

class ServiceProcess {
 public:
  // `service` is "sales" or "fulfilment"; `amqp_url` empty: the store transport.
  static absl::StatusOr<std::unique_ptr<ServiceProcess>> start(
      const std::filesystem::path& data_dir, const std::string& service,
      const std::string& amqp_url = "");
  ~ServiceProcess();

  // Stops the host: workers, then detached work, then the deferred rows.
  void stop();

 private:
  ServiceProcess() = default;

  std::unique_ptr<whizbang::Transport> transport_;
  std::unique_ptr<whizbang::WorkStore> store_;
  std::unique_ptr<whizbang::ThreadPoolExecutor> executor_;
  whizbang::ServiceRegistry dependencies_;
  std::unique_ptr<whizbang::ServiceHost> host_;
};

}  // namespace crash_restart
