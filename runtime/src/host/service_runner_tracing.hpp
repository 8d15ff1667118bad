// The runner's tracing: the OTLP exporter its configuration asks for
// (docs/guide/18-tracing.md). Two definitions, one linked: service_runner_otlp.cpp when the
// exporter is built (Whizbang::otlp, cmake/WhizbangOtlp.cmake), service_runner_no_otlp.cpp
// otherwise, so the runner links without protobuf and libcurl and says so when asked to trace.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "whizbang/host/service_runner.hpp"

namespace whizbang::runner_tracing {

// The span sink for config.otlp_endpoint: an OTLP exporter whose resource names the service and
// `instance_id`; null when no endpoint is configured.
absl::StatusOr<std::shared_ptr<SpanSink>> make_span_exporter(
    const ServiceRunnerConfig& config, std::string_view instance_id,
    std::shared_ptr<Metrics> metrics, std::shared_ptr<spdlog::logger> logger);

}  // namespace whizbang::runner_tracing
