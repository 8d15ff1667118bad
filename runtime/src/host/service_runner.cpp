#include "whizbang/host/service_runner.hpp"
#include "whizbang/host/service_runner_circuit_breaker.hpp"
#include "whizbang/host/service_runner_retry.hpp"

#include <pthread.h>
#include <signal.h>

#include <iostream>

#include "fmt/format.h"
#include "http/http_server.hpp"
#include "service_runner_console.hpp"
#include "service_runner_operator_api.hpp"
#include "service_runner_tracing.hpp"
#include "spdlog/spdlog.h"
#include "whizbang/observability/prometheus.hpp"
#include "whizbang/store/open_work_store.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_transport.hpp"

namespace whizbang {
namespace {

absl::StatusOr<std::unique_ptr<Transport>> open_transport(const ServiceRunnerConfig& config,
                                                          std::shared_ptr<spdlog::logger> logger) {
  if (config.transport == "none" || config.transport.empty()) return nullptr;
  if (!config.transport.starts_with("amqp:") && !config.transport.starts_with("amqps:")) {
    return absl::InvalidArgumentError(
        "--transport: expected amqp://…, amqps://…, amqp: (WHIZBANG_AMQP_URL) or none");
  }
  absl::StatusOr<RabbitMqOptions> options = rabbitmq_options_from_config(config);
  if (!options.ok()) return options.status();
  options->logger = std::move(logger);
  return std::unique_ptr<Transport>(new RabbitMqTransport(*std::move(options)));
}

// For the start-up line: the kind of store, never its location (a conninfo may hold a password).
std::string_view store_kind(std::string_view location) {
  switch (parse_store_location(location).backend) {
    case StoreBackend::Memory:
      return "memory";
    case StoreBackend::Postgres:
      return "postgresql";
    case StoreBackend::Sqlite:
      break;
  }
  return "sqlite";
}

// How long stop() waits for the collector to take the last spans.
constexpr std::chrono::milliseconds kSpanFlushOnStop{5000};

}  // namespace

// The HTTP endpoint: an http::HttpServer with its thread and limits
// (docs/guide/14-running-services.md, "HTTP limits"). The handlers run on the server's thread and
// only read in-memory state, so they are fast.
class ServiceRunner::HttpEndpoint {
 public:
  HttpEndpoint(ServiceRunner& runner, operator_api::OperatorApiContext operator_context)
      : runner_(runner),
        operator_api_(std::make_shared<operator_api::OperatorApi>(std::move(operator_context))) {}
  ~HttpEndpoint() { stop(); }

  absl::Status listen(const std::string& address, int port) {
    http::HttpRoutes routes;
    routes.get("/livez",
               [](const http::HttpRequest&) { return http::HttpResponse::text(200, "ok\n"); });
    routes.get("/readyz", [this](const http::HttpRequest&) {
      const absl::Status ready = runner_.readiness();
      return http::HttpResponse::text(ready.ok() ? 200 : 503,
                                      ready.ok() ? "ready\n" : std::string(ready.message()) + "\n");
    });
    routes.get("/metrics", [this](const http::HttpRequest&) {
      const bool transport_ready = runner_.transport_ == nullptr || runner_.transport_->is_ready();
      return http::HttpResponse::text(
          200,
          prometheus_text(*runner_.metrics_,
                          {{"whizbang_ready", "1 when the service is ready (as /readyz)",
                            runner_.readiness().ok() ? 1.0 : 0.0},
                           {"whizbang_transport_ready", "1 while the transport is connected",
                            transport_ready ? 1.0 : 0.0}}) +
              perspective_metrics(),
          "text/plain; version=0.0.4");
    });
    // The operator API (docs/guide/19-operating-services.md): on the server's worker thread.
    operator_api::add_routes(routes, operator_api_);
    register_console_routes(routes);
    absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
        http::HttpServer::start(address, port, std::move(routes));
    if (!server.ok()) return server.status();
    server_ = *std::move(server);
    return absl::OkStatus();
  }
  void stop() {
    if (server_) server_->stop();
  }
  // The perspectives' lag, versions and rebuilds (none without perspectives, or when the store
  // cannot be read: the rest of /metrics still answers).
  std::string perspective_metrics() {
    if (!runner_.host_ || runner_.host_->perspectives() == nullptr) return {};
    absl::StatusOr<std::string> text = perspective_prometheus_text(runner_.host_->store());
    return text.ok() ? *text : std::string();
  }
  int port() const { return server_ ? server_->port() : -1; }

 private:
  ServiceRunner& runner_;
  std::shared_ptr<operator_api::OperatorApi> operator_api_;
  std::unique_ptr<http::HttpServer> server_;
};

namespace {

// The host's circuit breakers as the operator API lists them ("half_open", not "half-open").
std::vector<OperatorBreakerState> operator_breakers(
    const std::vector<CircuitBreakerSnapshot>& snapshots) {
  std::vector<OperatorBreakerState> states;
  states.reserve(snapshots.size());
  for (const CircuitBreakerSnapshot& snapshot : snapshots) {
    OperatorBreakerState state;
    state.kind = std::string(to_string(snapshot.kind));
    state.name = snapshot.name;
    state.state = snapshot.state == CircuitState::HalfOpen ? "half_open"
                                                           : std::string(to_string(snapshot.state));
    state.failures = snapshot.recent_failures;
    state.open_until = snapshot.open_until;
    states.push_back(std::move(state));
  }
  return states;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServiceRunner>> ServiceRunner::start(const Registry& registry,
                                                                    const ServiceRegistry& services,
                                                                    ServiceRunnerConfig config,
                                                                    ServiceRunnerHooks hooks) {
  std::unique_ptr<ServiceRunner> runner(new ServiceRunner());
  runner->config_ = std::move(config);
  runner->metrics_ = hooks.metrics ? hooks.metrics : std::make_shared<InMemoryMetrics>();
  // The host's options first: the logger the host hook leaves in them is the store's, the
  // transport's, the exporter's and the runner's too (docs/guide/14-running-services.md).
  HostOptions options;
  options.service_name = runner->config_.service_name;
  options.trace_sampling_ratio = runner->config_.trace_sampling;
  options.logger = spdlog::default_logger();
  options.metrics = runner->metrics_;
  absl::StatusOr<EnvelopeSigning> signing = signing_from_config(runner->config_);
  if (!signing.ok()) return signing.status();
  options.signing = *std::move(signing);
  options.scope_trusted_services = scope_trusted_services_from_config(runner->config_);
  options.command_inboxes = command_inboxes_from_config(runner->config_);
  options.own_events = own_events_from_config(runner->config_);
  absl::StatusOr<RetryPolicies> retry_policies =
      parse_retry_policy_specs(runner->config_.retry_policies);
  if (!retry_policies.ok()) return retry_policies.status();
  options.retry_policies = *std::move(retry_policies);
  absl::StatusOr<CircuitBreakerRules> circuit_breakers =
      parse_circuit_breaker_specs(runner->config_.circuit_breakers);
  if (!circuit_breakers.ok()) return circuit_breakers.status();
  options.circuit_breakers = *std::move(circuit_breakers);
  if (hooks.host) hooks.host(options);
  const std::shared_ptr<spdlog::logger> logger = options.logger;
  runner->logger_ = logger;

  StoreOptions store_options;
  store_options.instance.service_name = runner->config_.service_name;
  // Chosen here rather than by the store, so the spans' service.instance.id names it too.
  store_options.instance.instance_id = MessageId::mint().uuid();
  store_options.metrics = runner->metrics_;
  store_options.logger = logger;
  if (hooks.store) hooks.store(store_options);
  absl::StatusOr<std::unique_ptr<WorkStore>> store =
      open_work_store(runner->config_.store, store_options);
  if (!store.ok()) return store.status();
  runner->store_ = *std::move(store);
  if (hooks.migrate) {
    if (absl::Status migrated = hooks.migrate(*runner->store_); !migrated.ok()) return migrated;
  }

  absl::StatusOr<std::unique_ptr<Transport>> transport = open_transport(runner->config_, logger);
  if (!transport.ok()) return transport.status();
  runner->transport_ = *std::move(transport);

  absl::StatusOr<std::shared_ptr<SpanSink>> span_sink = runner_tracing::make_span_exporter(
      runner->config_, store_options.instance.instance_id.to_string(), runner->metrics_, logger);
  if (!span_sink.ok()) return span_sink.status();
  runner->span_sink_ = *std::move(span_sink);
  // What the hook set itself is kept.
  if (options.store == nullptr) options.store = runner->store_.get();
  if (options.transport == nullptr) options.transport = runner->transport_.get();
  if (!options.span_sink) options.span_sink = runner->span_sink_;
  absl::StatusOr<std::unique_ptr<ServiceHost>> host =
      ServiceHost::create(registry, services, std::move(options));
  if (!host.ok()) return host.status();
  runner->host_ = *std::move(host);
  if (absl::Status started = runner->host_->start(); !started.ok()) return started;
  runner->running_ = true;

  if (runner->config_.http_port >= 0) {
    // The overview lists the host's circuit breakers unless the hooks say otherwise.
    std::function<std::vector<OperatorBreakerState>()> breakers = hooks.breakers;
    if (!breakers) {
      breakers = [host = runner->host_.get()] {
        return operator_breakers(host->circuit_breakers());
      };
    }
    runner->http_ = std::make_unique<HttpEndpoint>(
        *runner, operator_api::OperatorApiContext{
                     runner->config_.service_name, runner->store_.get(), &registry,
                     runner->metrics_, logger, runner->config_.admin_token, std::move(breakers)});
    if (absl::Status listening =
            runner->http_->listen(runner->config_.http_address, runner->config_.http_port);
        !listening.ok()) {
      return listening;
    }
  }
  if (hooks.started) {
    if (absl::Status status = hooks.started(*runner); !status.ok()) return status;
  }
  return runner;
}

ServiceRunner::~ServiceRunner() { stop(); }

absl::Status ServiceRunner::readiness() const {
  if (!running_.load()) return absl::UnavailableError("not running (starting or stopping)");
  if (transport_ != nullptr && !transport_->is_ready()) {
    return absl::UnavailableError("the transport is not connected");
  }
  const auto now = std::chrono::steady_clock::now();
  const DeliveryHealth delivery = host_->delivery_health();
  if (delivery.failing_since && now - *delivery.failing_since >= config_.failure_grace) {
    return absl::UnavailableError(fmt::format(
        "the subscription is stuck: no delivered batch stored for {} ms (last error: {})",
        config_.failure_grace.count(), delivery.last_error));
  }
  if (const auto worker = host_->failing_worker();
      worker && now - worker->failing.since >= config_.failure_grace) {
    return absl::UnavailableError(
        fmt::format("every {} cycle has failed for {} ms (last error: {})", worker->worker,
                    config_.failure_grace.count(), worker->failing.last_error));
  }
  return absl::OkStatus();
}

int ServiceRunner::http_port() const { return http_ == nullptr ? -1 : http_->port(); }

void ServiceRunner::stop() {
  running_ = false;
  if (host_) host_->stop();
  // The spans of the last handlings: sent before the process ends (the exporter's thread keeps
  // running until the runner is destroyed, for spans a later stop() would still produce).
  if (span_sink_) span_sink_->flush(kSpanFlushOnStop);
  if (http_) http_->stop();
}

int run_service_main(int argc, char** argv, const Registry& registry,
                     const ServiceRegistry& services, ServiceRunnerHooks hooks) {
  absl::StatusOr<ServiceRunnerConfig> config = parse_service_runner_config(argc, argv);
  if (!config.ok()) {
    std::cerr << argv[0] << ": " << config.status().message() << "\n";
    return 2;
  }
  // Blocked before any thread starts, so every thread inherits the mask and sigwait() gets them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  absl::StatusOr<std::unique_ptr<ServiceRunner>> runner =
      ServiceRunner::start(registry, services, *config, std::move(hooks));
  if (!runner.ok()) {
    std::cerr << argv[0] << ": " << config->service_name
              << " did not start: " << runner.status().message() << "\n";
    return 1;
  }
  // The host's logger (HostOptions::logger after the host hook); null: quiet.
  const std::shared_ptr<spdlog::logger> logger = (*runner)->logger();
  if (logger) {
    logger->info("service '{}' running (store: {}, transport: {}, http port: {}, traces: {})",
                 config->service_name, store_kind(config->store),
                 config->transport == "none" ? "none" : "rabbitmq", (*runner)->http_port(),
                 config->otlp_endpoint.empty() ? "off" : "otlp");
  }
  int received = 0;
  sigwait(&stop_signals, &received);
  (*runner)->stop();
  if (logger) logger->info("service '{}' stopped on signal {}", config->service_name, received);
  return 0;
}

}  // namespace whizbang
