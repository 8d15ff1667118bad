#include "http/http_routes.hpp"

#include <exception>
#include <string_view>
#include <utility>

#include "fmt/format.h"

namespace whizbang::http {

void HttpRoutes::add(std::string method, std::string path, HttpHandler handler) {
  routes_[std::move(path)][std::move(method)] = HttpRoute{std::move(handler), false, 0};
}

void HttpRoutes::add_deferred(std::string method, std::string path, HttpHandler handler,
                              std::size_t max_body) {
  routes_[std::move(path)][std::move(method)] = HttpRoute{std::move(handler), true, max_body};
}

void HttpRoutes::add_prefix_deferred(std::string method, std::string prefix, HttpHandler handler,
                                     std::size_t max_body) {
  prefixes_[std::move(prefix)][std::move(method)] = HttpRoute{std::move(handler), true, max_body};
}

const HttpRoutes::Handlers* HttpRoutes::find_path(const std::string& path) const {
  if (const auto exact = routes_.find(path); exact != routes_.end()) return &exact->second;
  const Handlers* found = nullptr;
  std::size_t longest = 0;
  for (const auto& [prefix, handlers] : prefixes_) {
    if (path.starts_with(prefix) && prefix.size() >= longest) {
      found = &handlers;
      longest = prefix.size();
    }
  }
  return found;
}

std::variant<const HttpRoute*, HttpResponse> HttpRoutes::route(const HttpRequest& request) const {
  const Handlers* handlers = find_path(request.path);
  if (handlers == nullptr) return HttpResponse::text(404, "not found\n");
  std::string_view method = request.method;
  if (method == "HEAD" && !handlers->contains(method)) method = "GET";
  const auto found = handlers->find(method);
  if (found == handlers->end()) {
    HttpResponse refused = HttpResponse::text(405, "method not allowed\n");
    refused.headers.emplace_back("Allow", allowed_methods(*handlers));
    return refused;
  }
  const HttpRoute& route = found->second;
  if (request.has_body()) {
    if (route.max_body == 0) return HttpResponse::text(413, "this path takes no request body\n");
    if (request.has_transfer_encoding) {
      return HttpResponse::text(400, "send the request body with Content-Length\n");
    }
    if (*request.content_length > route.max_body) {
      return HttpResponse::text(413, fmt::format("request body over {} bytes\n", route.max_body));
    }
  }
  return &route;
}

HttpResponse HttpRoutes::invoke(const HttpRoute& route, const HttpRequest& request) {
  try {
    return route.handler(request);
  } catch (const std::exception&) {
    return HttpResponse::text(500, "internal error\n");
  }
}

HttpResponse HttpRoutes::respond(const HttpRequest& request) const {
  std::variant<const HttpRoute*, HttpResponse> found = route(request);
  if (auto* refusal = std::get_if<HttpResponse>(&found)) return std::move(*refusal);
  return invoke(*std::get<const HttpRoute*>(found), request);
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
