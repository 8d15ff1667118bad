// trace_e2e_shipping: the shipping service of the two-process tracing test, run by the process
// runner. Its shipping fails once; its store's clock then runs fast so the retry comes at once.
#include <whizbang/host/service_runner.hpp>

#include "trace_e2e/shipping.hpp"

int main(int argc, char** argv) {
  trace_e2e::ShippingState state;
  whizbang::ServiceRegistry services;
  services.add<trace_e2e::ShippingState>(state);
  whizbang::ServiceRunnerHooks hooks;
  hooks.store = [&state](whizbang::StoreOptions& options) {
    options.now = [&state] { return state.store_now(); };
  };
  hooks.host = [](whizbang::HostOptions& options) {
    options.poll_interval = std::chrono::milliseconds(20);
  };
  return whizbang::run_service_main(argc, argv, trace_e2e::shipping_registry(), services, hooks);
}
