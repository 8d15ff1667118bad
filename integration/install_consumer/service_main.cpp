// A service process as chapter 14 writes one (docs/guide/14-running-services.md), built from the
// installed package with Whizbang::runtime and Whizbang::service_runner: it starts, and stops
// itself with the signal an orchestrator sends.
#include <signal.h>
#include <unistd.h>

#include <whizbang/host/service_runner.hpp>

#include "greetings.hpp"
#include "whizbang_registry.hpp"

int main(int argc, char** argv) {
  int greeted = 0;
  whizbang::ServiceRegistry services;
  services.add<int>(greeted);
  whizbang::ServiceRunnerHooks hooks;
  hooks.started = [](whizbang::ServiceRunner&) {
    kill(getpid(), SIGTERM);  // waited for by run_service_main, which blocked it
    return absl::OkStatus();
  };
  return whizbang::run_service_main(argc, argv, whizbang::generated::service::registry(), services,
                                    std::move(hooks));
}
