#include "service_runner_otel_env.hpp"

#include <cstdlib>
#include <string_view>

namespace whizbang::runner_otel {

EnvValue first_set(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return {name, value};
  }
  return {};
}

EnvValue sampler_ratio() {
  const char* sampler = std::getenv("OTEL_TRACES_SAMPLER");
  if (sampler != nullptr && *sampler != '\0' && std::string_view(sampler) != "traceidratio" &&
      std::string_view(sampler) != "parentbased_traceidratio") {
    return {};
  }
  return first_set({"OTEL_TRACES_SAMPLER_ARG"});
}

void fill_unset(ServiceRunnerConfig& config) {
  // The traces endpoint is a whole URL; the exporter keeps a path that ends in /v1/traces.
  if (config.otlp_endpoint.empty()) {
    const EnvValue endpoint =
        first_set({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"});
    if (endpoint.value != nullptr) config.otlp_endpoint = endpoint.value;
  }
  if (config.service_name.empty()) {
    const EnvValue service = first_set({"OTEL_SERVICE_NAME"});
    if (service.value != nullptr) config.service_name = service.value;
  }
}

}  // namespace whizbang::runner_otel
