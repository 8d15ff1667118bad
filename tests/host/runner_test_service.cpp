// runner_test_service: the runner's one-receptor service as a process, for the signal tests.
//   runner_test_service --service NAME --transport URL --http-port N
#include <whizbang/host/service_runner.hpp>

#include "runner_receptors.hpp"
#include "whizbang_registry.hpp"

int main(int argc, char** argv) {
  runner_test::PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<runner_test::PingCounter>(counter);
  return whizbang::run_service_main(
      argc, argv, whizbang::generated::runner_test_receptors::registry(), services);
}
