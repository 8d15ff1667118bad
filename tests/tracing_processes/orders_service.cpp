// trace_e2e_orders: the orders service of the two-process tracing test, run by the process
// runner (its --otlp-endpoint and the rest). With TRACE_E2E_ORDER set, it sends that order once
// started: the root of the trace the test follows.
#include <whizbang/host/service_runner.hpp>

#include <cstdlib>
#include <string>

#include "trace_e2e/orders.hpp"
#include "whizbang_messages.hpp"

int main(int argc, char** argv) {
  whizbang::ServiceRegistry services;
  whizbang::ServiceRunnerHooks hooks;
  hooks.host = [](whizbang::HostOptions& options) {
    options.poll_interval = std::chrono::milliseconds(20);
  };
  hooks.started = [](whizbang::ServiceRunner& runner) -> absl::Status {
    const char* order = std::getenv("TRACE_E2E_ORDER");
    if (order == nullptr) return absl::OkStatus();
    trace_e2e::PlaceOrder command;
    command.order_id = order;
    return runner.host().dispatcher().send(command).status();
  };
  return whizbang::run_service_main(argc, argv, trace_e2e::orders_registry(), services, hooks);
}
