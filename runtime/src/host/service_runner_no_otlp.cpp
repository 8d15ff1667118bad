#include "service_runner_tracing.hpp"

namespace whizbang::runner_tracing {

absl::StatusOr<std::shared_ptr<SpanSink>> make_span_exporter(const ServiceRunnerConfig& config,
                                                             std::string_view,
                                                             std::shared_ptr<Metrics>,
                                                             std::shared_ptr<spdlog::logger>) {
  if (config.otlp_endpoint.empty()) return nullptr;
  return absl::FailedPreconditionError(
      "--otlp-endpoint: this build has no OTLP exporter (built without protobuf and libcurl: "
      "cmake -DWHIZBANG_OTLP=ON)");
}

}  // namespace whizbang::runner_tracing
