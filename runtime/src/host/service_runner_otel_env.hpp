// OpenTelemetry's standard environment variables, read by the process runner where its own
// flags and WHIZBANG_* variables leave a setting unset (docs/guide/18-tracing.md, "In the process
// runner"): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_HEADERS, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME and
// OTEL_TRACES_SAMPLER_ARG.
#pragma once

#include <initializer_list>

#include "whizbang/host/service_runner.hpp"

namespace whizbang::runner_otel {

// A variable's name and value; value null when none of those asked for is set (or all empty).
struct EnvValue {
  const char* name = nullptr;
  const char* value = nullptr;
};

// The first of `names` set to a non-empty value.
EnvValue first_set(std::initializer_list<const char*> names);

// OTEL_TRACES_SAMPLER_ARG, when OTEL_TRACES_SAMPLER is unset or a ratio sampler
// (traceidratio, parentbased_traceidratio); a continued trace keeps its flag either way.
EnvValue sampler_ratio();

// An empty otlp_endpoint from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
// OTEL_EXPORTER_OTLP_ENDPOINT; an empty service_name from OTEL_SERVICE_NAME.
void fill_unset(ServiceRunnerConfig& config);

}  // namespace whizbang::runner_otel
