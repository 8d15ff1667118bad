// perspective_sync_worker BACKEND LOCATION: the service's perspective process for
// PerspectiveSyncProcessTests. Runs a ServiceHost (outbox drain, perspective worker, ...) on the
// SQLite file or PostgreSQL conninfo LOCATION until SIGTERM.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <whizbang/host/service_host.hpp>
#include <whizbang/store/postgres/postgres_work_store.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>

#include "whizbang_registry.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: perspective_sync_worker sqlite|postgres LOCATION\n");
    return 2;
  }
  // Blocked before any thread starts, so every thread inherits it and sigwait() takes it.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  const std::string backend = argv[1];
  whizbang::StoreOptions options;
  options.instance = {"sync-tests", whizbang::MessageId::mint().uuid(), "worker-process",
                      static_cast<int>(::getpid())};
  std::unique_ptr<whizbang::WorkStore> store;
  if (backend == "postgres") {
    auto opened = whizbang::PostgresWorkStore::open(argv[2], options);
    if (!opened.ok()) {
      std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
      return 1;
    }
    store = *std::move(opened);
  } else {
    auto opened = whizbang::SqliteWorkStore::open(argv[2], options);
    if (!opened.ok()) {
      std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
      return 1;
    }
    store = *std::move(opened);
  }
  whizbang::ServiceRegistry services;
  whizbang::HostOptions host_options;
  host_options.service_name = "sync-tests";
  host_options.store = store.get();
  host_options.poll_interval = std::chrono::milliseconds(20);
  auto host = whizbang::ServiceHost::create(
      whizbang::generated::perspective_sync_worker::registry(), services, std::move(host_options));
  if (!host.ok()) {
    std::fprintf(stderr, "%s\n", host.status().ToString().c_str());
    return 1;
  }
  if (absl::Status started = (*host)->start(); !started.ok()) {
    std::fprintf(stderr, "%s\n", started.ToString().c_str());
    return 1;
  }
  int signal = 0;
  sigwait(&stop, &signal);
  (*host)->stop();
  return 0;
}
