// The runner's web console (docs/guide/14-running-services.md, "The web console"): static files
// (src/host/console/) compiled into the binary and served under /console/. The page calls only
// the operator API (/api/v1/...); these routes serve its files and nothing else.
//
//   http::HttpRoutes routes;
//   register_console_routes(routes);  // GET /console/, /console/app.js, /console/app.css
#pragma once

#include <span>
#include <string_view>

namespace whizbang {
namespace http {
class HttpRoutes;
}

namespace console {

// One embedded file: its name ("app.js") and its bytes.
struct EmbeddedFile {
  std::string_view name;
  std::string_view bytes;
};

// The console's files, generated at build time (cmake/WhizbangEmbedFiles.cmake).
std::span<const EmbeddedFile> embedded_files();

// The Content-Type a console file is served with, by its name's extension.
std::string_view content_type_of(std::string_view name);

}  // namespace console

// Adds GET (and HEAD) /console/ (index.html), /console/<file> for every other embedded file, and
// /console (a redirect to /console/). Each answer carries Cache-Control: no-store, a
// Content-Security-Policy that runs only the console's own script (no inline script or style)
// and X-Content-Type-Options: nosniff.
void register_console_routes(http::HttpRoutes& routes);

}  // namespace whizbang
