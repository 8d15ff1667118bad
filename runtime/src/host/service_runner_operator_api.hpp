// The runner's operator API (docs/guide/19-operating-services.md): the overview and dead-letter
// operations over HTTP, beside /livez /readyz /metrics. Every route is deferred (HttpRoutes::
// add_deferred): it runs on the HTTP server's worker thread, so a slow store never delays a probe.
//
//   auto api = std::make_shared<operator_api::OperatorApi>(context);
//   operator_api::add_routes(routes, api);
//
// Auth: GETs need no token; a POST needs "Authorization: Bearer <token>" matching the configured
// token (compared in constant time); with no token configured every POST answers 403.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/http_routes.hpp"
#include "whizbang/host/service_runner.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang::operator_api {

inline constexpr std::size_t kMaxBodyBytes = 64 * 1024;
inline constexpr std::size_t kMaxDiscardReasonBytes = 1024;

struct OperatorApiContext {
  std::string service_name;
  WorkStore* store = nullptr;
  const Registry* registry = nullptr;  // for dry runs: the receptors of a message type
  std::shared_ptr<InMemoryMetrics> metrics;
  std::shared_ptr<spdlog::logger> logger;
  std::string admin_token;  // empty: read-only
  std::function<std::vector<OperatorBreakerState>()> breakers;
};

class OperatorApi {
 public:
  explicit OperatorApi(OperatorApiContext context) : context_(std::move(context)) {}

  http::HttpResponse overview(const http::HttpRequest& request);
  http::HttpResponse list(const http::HttpRequest& request);
  http::HttpResponse groups(const http::HttpRequest& request);
  http::HttpResponse show(const http::HttpRequest& request);
  http::HttpResponse requeue(const http::HttpRequest& request);
  http::HttpResponse discard(const http::HttpRequest& request);

 private:
  // nullopt: allowed; else the refusal (401, 403), logged (EventId 157).
  std::optional<http::HttpResponse> refuse_unauthorized(const http::HttpRequest& request,
                                                        std::string_view action);
  http::HttpResponse dry_run(std::span<const DeadLetterKey> keys);

  OperatorApiContext context_;
};

void add_routes(http::HttpRoutes& routes, const std::shared_ptr<OperatorApi>& api);
// The peer address bytes of HttpRequest::client as text ("127.0.0.1").
std::string printable_client(const std::string& client);

}  // namespace whizbang::operator_api
