#include "service_runner_tracing.hpp"
#include "whizbang/otlp/otlp_exporter.hpp"

namespace whizbang::runner_tracing {

absl::StatusOr<std::shared_ptr<SpanSink>> make_span_exporter(
    const ServiceRunnerConfig& config, std::string_view instance_id,
    std::shared_ptr<Metrics> metrics, std::shared_ptr<spdlog::logger> logger) {
  if (config.otlp_endpoint.empty()) return nullptr;
  OtlpExporterOptions options;
  options.endpoint = config.otlp_endpoint;
  options.headers = config.otlp_headers;
  options.resource = otlp_service_resource(config.service_name, instance_id);
  options.metrics = std::move(metrics);
  options.logger = std::move(logger);
  absl::StatusOr<std::shared_ptr<OtlpExporter>> exporter = OtlpExporter::create(std::move(options));
  if (!exporter.ok()) return exporter.status();
  return std::shared_ptr<SpanSink>(*std::move(exporter));
}

}  // namespace whizbang::runner_tracing
