// ServiceRunner: a service as a process of its own. It reads where the store and the broker are
// from flags or the environment, starts a ServiceHost, serves health and metrics over HTTP, and
// stops cleanly on SIGTERM or SIGINT (docs/guide/14-running-services.md).
//
//   int main(int argc, char** argv) {
//     whizbang::ServiceRegistry services;
//     services.add<shop::Mailer>(mailer);
//     return whizbang::run_service_main(argc, argv, whizbang::generated::orders::registry(),
//                                       services);
//   }
//
//   ./orders --service orders --store /var/lib/orders/orders.db --transport amqp: --http-port 9464
//
// Endpoints (when --http-port is given): GET /livez (200 while the process runs), GET /readyz
// (200 once started, the transport connected, the store answering and the subscription storing,
// else 503 with the reason), GET /metrics (Prometheus text: the runtime's counters,
// whizbang_ready and whizbang_transport_ready). One thread serves them with bounded requests, so
// slow clients never delay a probe (docs/guide/14-running-services.md, "HTTP limits").
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/host/service_host.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_options.hpp"

namespace whizbang {

struct ServiceRunnerConfig {
  std::string service_name;
  // Where the store is (open_work_store): "memory:", "sqlite:PATH" or a path, "postgresql://…",
  // a key=value conninfo, or "postgresql:" for WHIZBANG_PG_CONNINFO.
  std::string store = "memory:";
  // "amqp://…" / "amqps://…" (RabbitMqTransport), "amqp:" for WHIZBANG_AMQP_URL, or "none" (the
  // host stores and handles its own work only).
  std::string transport = "none";
  std::string http_address = "127.0.0.1";
  // -1: no HTTP endpoint; 0: any free port (ServiceRunner::http_port() tells which).
  int http_port = -1;
  // Envelope signing: "off", "sign" or "require" (docs/guide/16-security.md). The keys come from
  // WHIZBANG_SIGNING_KEYS only: a command line is visible to every user of the machine.
  std::string signing = "off";
  // The services trusted to set the security scope, comma-separated; "*" trusts every sender.
  std::string scope_trusted_services = "*";
  // How long every delivered batch may fail to be stored (a stuck subscription), or every cycle
  // of a worker fail (a store that is down), before /readyz answers 503: longer than a store's
  // brief hiccup, shorter than an orchestrator's patience. No flag: set it in code.
  std::chrono::milliseconds failure_grace{5000};
  // Tracing (docs/guide/18-tracing.md): the OTLP/HTTP collector spans are exported to
  // ("http://collector:4318"; /v1/traces is appended); empty: nothing is traced.
  std::string otlp_endpoint;
  // Headers sent with every export ({"authorization", "Bearer ..."}).
  std::vector<std::pair<std::string, std::string>> otlp_headers;
  // The share of new traces recorded, 0 to 1 (HostOptions::trace_sampling_ratio).
  double trace_sampling = 1.0;
  // Command namespaces with an inbox of their own (HostOptions::command_inboxes): "*" (every
  // one, the default), a comma-separated list ("shop.orders,shop.billing"), or "none" (every
  // command on the shared inbox, the layout before). docs/guide/13-rabbitmq.md.
  std::string command_inboxes = "*";
  // Also listen on the shared inbox while senders still publish there.
  bool keep_shared_inbox = false;
  // Retry policy rules, "RULE=POLICY" each (whizbang/host/service_runner_retry.hpp), applied in
  // order to HostOptions::retry_policies; none: the store's schedule.
  std::vector<std::string> retry_policies;
  // The RabbitMQ options besides where the broker is: host, port, vhost, user, password and TLS
  // on or off come from `transport`'s URL, the connection name is the service name and the
  // logger the host's (--amqp-* flags; docs/guide/14-running-services.md).
  RabbitMqOptions amqp;
  // HostOptions::own_events (docs/guide/13-rabbitmq.md, "Own events"): drop this service's own
  // events coming back from the broker before they are stored, and the event types (wire names,
  // a trailing '*' matches any suffix; comma-separated) only this service publishes, not bound.
  bool drop_own_events = false;
  std::vector<std::string> local_only_events;
  // Circuit breaker rules, "RULE=SPEC" each (whizbang/host/service_runner_circuit_breaker.hpp),
  // into HostOptions::circuit_breakers; none: no breakers.
  std::vector<std::string> circuit_breakers;
  // The operator API's token (docs/guide/19-operating-services.md): from WHIZBANG_ADMIN_TOKEN
  // only, never a flag (a command line is visible). Empty: the API is read-only (POSTs: 403).
  std::string admin_token;
};

// --service NAME, --store LOCATION, --transport URL, --http-port N, --http-address ADDRESS,
// --signing MODE, --trusted-scope-services LIST, --otlp-endpoint URL, --otlp-header NAME=VALUE
// (repeatable), --trace-sampling RATIO (also as --flag=value). Each falls back to
// WHIZBANG_SERVICE, WHIZBANG_STORE, WHIZBANG_TRANSPORT, WHIZBANG_HTTP_PORT,
// WHIZBANG_HTTP_ADDRESS, WHIZBANG_SIGNING, WHIZBANG_TRUSTED_SCOPE_SERVICES,
// WHIZBANG_OTLP_ENDPOINT, WHIZBANG_OTLP_HEADERS ("name=value,name=value", values
// percent-decoded as in OTEL_EXPORTER_OTLP_HEADERS; the place for a secret: a command line is
// visible to every user of the machine), WHIZBANG_TRACE_SAMPLING; below those, OpenTelemetry's
// OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, OTEL_SERVICE_NAME
// and OTEL_TRACES_SAMPLER_ARG (docs/guide/18-tracing.md). --retry RULE=POLICY (repeatable; else
// WHIZBANG_RETRY, rules separated by ';') sets retry policies, --circuit-breaker RULE=SPEC
// (repeatable; else WHIZBANG_CIRCUIT_BREAKER, likewise) circuit breakers
// (docs/guide/11-failures.md);
// --command-inboxes LIST and --keep-shared-inbox true|false (WHIZBANG_COMMAND_INBOXES,
// WHIZBANG_KEEP_SHARED_INBOX) choose the command inboxes (docs/guide/13-rabbitmq.md).
// --amqp-heartbeat, --amqp-prefetch, --amqp-unrouted-grace, --amqp-connect-timeout,
// --amqp-rpc-timeout, --amqp-confirm-timeout, --amqp-reconnect-initial-delay,
// --amqp-reconnect-max-delay, --amqp-max-message-bytes, --amqp-consume-poll-interval,
// --amqp-dead-letter-exchanges, --amqp-ca-cert, --amqp-client-cert, --amqp-client-key
// (WHIZBANG_AMQP_HEARTBEAT, …) set `amqp`; --drop-own-events true|false and
// --local-only-events LIST (WHIZBANG_DROP_OWN_EVENTS, WHIZBANG_LOCAL_ONLY_EVENTS) the own events
// (docs/guide/14-running-services.md). A service name is required.
absl::StatusOr<ServiceRunnerConfig> parse_service_runner_config(int argc, const char* const argv[]);
// The signing a configuration asks for, with the keys from WHIZBANG_SIGNING_KEYS.
absl::StatusOr<EnvelopeSigning> signing_from_config(const ServiceRunnerConfig& config);
// The command inboxes a configuration asks for.
CommandInboxes command_inboxes_from_config(const ServiceRunnerConfig& config);
// The trusted scope setters a configuration lists; nullopt for "*".
std::optional<std::vector<std::string>> scope_trusted_services_from_config(
    const ServiceRunnerConfig& config);
// The RabbitMQ options a configuration asks for: `amqp` with the broker of `transport`'s URL
// ("amqp:": WHIZBANG_AMQP_URL) and the service name as the connection name.
absl::StatusOr<RabbitMqOptions> rabbitmq_options_from_config(const ServiceRunnerConfig& config);
// What a configuration does with the service's own events.
OwnEvents own_events_from_config(const ServiceRunnerConfig& config);

// What a service's main() adds to the configuration.
class ServiceRunner;

// One circuit breaker as the operator API's /api/v1/overview shows it.
struct OperatorBreakerState {
  std::string kind;  // "receptor" or "destination"
  std::string name;
  std::string state;  // "closed", "open" or "half_open"
  std::int64_t failures = 0;
  std::optional<TimePoint> open_until;
};

struct ServiceRunnerHooks {
  // The counters /metrics exposes; null: the runner makes its own. Pass one to count your own
  // things next to the runtime's.
  std::shared_ptr<InMemoryMetrics> metrics;
  // Adjust the store's options before it opens (lease duration, durability, max attempts, …).
  std::function<void(StoreOptions&)> store;
  // Your migrations (docs/guide/17-your-data.md): runs once the store is open (its own tables
  // migrated) and before anything is handled; an error fails the start.
  std::function<absl::Status(WorkStore&)> migrate;
  // Adjust the host's options (executor, guardrails, poll interval, logger, …). It runs before
  // the store, the transport and the trace exporter are made, so the logger it leaves in
  // HostOptions::logger (spdlog's default logger unless it sets one; null: quiet) is theirs and
  // the runner's too; the store, transport and span sink are filled in after it unless it set
  // them itself.
  std::function<void(HostOptions&)> host;
  // Runs once the service is started (e.g. to send what a job process sends); an error stops
  // it again and fails the start.
  std::function<absl::Status(ServiceRunner&)> started;
  // The breakers /api/v1/overview lists (called on the HTTP worker thread); null: none.
  std::function<std::vector<OperatorBreakerState>()> breakers;
};

class ServiceRunner {
 public:
  // Opens the store and the transport, creates and starts the host (subscribing its queues),
  // then starts the HTTP endpoint.
  static absl::StatusOr<std::unique_ptr<ServiceRunner>> start(const Registry& registry,
                                                              const ServiceRegistry& services,
                                                              ServiceRunnerConfig config,
                                                              ServiceRunnerHooks hooks = {});
  ~ServiceRunner();
  ServiceRunner(const ServiceRunner&) = delete;
  ServiceRunner& operator=(const ServiceRunner&) = delete;

  ServiceHost& host() { return *host_; }
  InMemoryMetrics& metrics() { return *metrics_; }
  const ServiceRunnerConfig& config() const { return config_; }

  // What /readyz reports: OK once started, (with a transport) connected to it, with workers whose
  // cycles succeed and a subscription that stores what it is delivered (each failing for longer
  // than failure_grace is not ready).
  absl::Status readiness() const;
  // The HTTP endpoint's port, -1 without one.
  int http_port() const;
  // Where the host's spans go: the OTLP exporter; null without an OTLP endpoint.
  SpanSink* span_sink() const { return span_sink_.get(); }
  // Where the service's lines go (the host's, the store's, the transport's, the runner's own):
  // HostOptions::logger as the host hook left it.
  const std::shared_ptr<spdlog::logger>& logger() const { return logger_; }

  // Not ready from here on; stops the host (workers, detached work, deferred rows: nothing in
  // flight is lost), sends the spans still queued for the collector, then stops the HTTP
  // endpoint. Called by the destructor too.
  void stop();

 private:
  class HttpEndpoint;
  ServiceRunner() = default;

  ServiceRunnerConfig config_;
  std::shared_ptr<InMemoryMetrics> metrics_;
  std::unique_ptr<WorkStore> store_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<HttpEndpoint> http_;
  std::shared_ptr<SpanSink> span_sink_;  // the OTLP exporter; null without --otlp-endpoint
  std::shared_ptr<spdlog::logger> logger_;
  std::atomic<bool> running_{false};
};

// main() of a service process: parses the configuration (exit 2 when it is wrong), starts the
// runner (exit 1 when that fails), waits for SIGTERM or SIGINT and stops cleanly (exit 0).
int run_service_main(int argc, char** argv, const Registry& registry,
                     const ServiceRegistry& services, ServiceRunnerHooks hooks = {});

}  // namespace whizbang
