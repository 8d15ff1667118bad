// The runner's transport flags (docs/guide/14-running-services.md, "Configuration"): the
// RabbitMQ options besides the broker's URL (--amqp-*) and what comes back of the service's own
// events (--drop-own-events, --local-only-events), each with its WHIZBANG_* variable.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "whizbang/host/service_runner.hpp"

namespace CLI {
class App;
}

namespace whizbang::runner_flags {

// The flags' texts as given (empty: not given), checked and applied by apply().
struct TransportFlags {
  std::array<std::string, 16> values;
};

// Adds the flags to `app`, each falling back to its environment variable.
void add_transport_flags(CLI::App& app, TransportFlags& flags);
// Checks the given values and writes them into config.amqp and config's own-events fields; the
// error names the flag (or variable) and what it takes.
absl::Status apply_transport_flags(const TransportFlags& flags, ServiceRunnerConfig& config);
// ", --amqp-heartbeat, …": for the unknown-option message.
std::string known_transport_flags();

}  // namespace whizbang::runner_flags
