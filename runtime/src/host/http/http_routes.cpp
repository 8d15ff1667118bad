#include "http/http_routes.hpp"

#include <exception>
#include <string_view>
#include <utility>

namespace whizbang::http {

void HttpRoutes::add(std::string method, std::string path, HttpHandler handler) {
  routes_[std::move(path)][std::move(method)] = std::move(handler);
}

HttpResponse HttpRoutes::respond(const HttpRequest& request) const {
  const auto route = routes_.find(request.path);
  if (route == routes_.end()) return HttpResponse::text(404, "not found\n");
  const Handlers& handlers = route->second;
  std::string_view method = request.method;
  if (method == "HEAD" && !handlers.contains(method)) method = "GET";
  const auto handler = handlers.find(method);
  if (handler == handlers.end()) {
    HttpResponse refused = HttpResponse::text(405, "method not allowed\n");
    refused.headers.emplace_back("Allow", allowed_methods(handlers));
    return refused;
  }
  if (request.has_body()) return HttpResponse::text(413, "this path takes no request body\n");
  // One failing handler must not end the server's thread (and with it the process).
  try {
    return handler->second(request);
  } catch (const std::exception&) {
    return HttpResponse::text(500, "internal error\n");
  }
}

std::string HttpRoutes::allowed_methods(const Handlers& handlers) {
  std::string allowed;
  for (const auto& [method, handler] : handlers) {
    if (!allowed.empty()) allowed.append(", ");
    allowed.append(method);
    if (method == "GET" && !handlers.contains("HEAD")) allowed.append(", HEAD");
  }
  return allowed;
}

}  // namespace whizbang::http
