#include "service_runner_console.hpp"

#include <string>

#include "http/http_routes.hpp"

namespace whizbang {
namespace console {

std::string_view content_type_of(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace console

namespace {

// The page runs its own script and style only, talks to its own origin only, and may not be
// framed (clickjacking) or post forms anywhere: what it shows comes from the API as text.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

void add_security_headers(http::HttpResponse& response) {
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
}

}  // namespace

void register_console_routes(http::HttpRoutes& routes) {
  for (const console::EmbeddedFile& file : console::embedded_files()) {
    const std::string path =
        file.name == "index.html" ? std::string("/console/") : "/console/" + std::string(file.name);
    routes.get(path, [file](const http::HttpRequest&) {
      http::HttpResponse response = http::HttpResponse::text(
          200, std::string(file.bytes), std::string(console::content_type_of(file.name)));
      add_security_headers(response);
      return response;
    });
  }
  routes.get("/console", [](const http::HttpRequest&) {
    http::HttpResponse moved = http::HttpResponse::text(308, "see /console/\n");
    moved.headers.emplace_back("Location", "/console/");
    add_security_headers(moved);
    return moved;
  });
}

}  // namespace whizbang
