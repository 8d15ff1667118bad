// HttpServerFixture: an HttpServer (runtime/src/host/http) serving the runner's kind of routes
// on a free loopback port, with limits a test chooses. The default test limits keep every
// deadline short (200 ms), so a test waiting for one never waits long.
//
//   TEST_F(HttpServerLimitsTests, Something) {
//     start();  // or start(limits) with limits from test_limits(), changed
//     http_test::RawHttpClient client(port());
//     ...
//     EXPECT_LE(server().stats().largest_input, test_limits().max_head_bytes);
//   }
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "host/http/http_server.hpp"
#include "raw_http_client.hpp"

namespace http_test {

// A complete request for /livez, kept alive (HTTP/1.1).
inline constexpr std::string_view kLivez = "GET /livez HTTP/1.1\r\nHost: test\r\n\r\n";
// /big's body: more than the kernel buffers of a loopback connection hold together when the
// client's receive buffer is small (the server's send buffer grows to 4 MiB at most).
inline constexpr std::size_t kBigBody = 16 * 1024 * 1024;

class HttpServerFixture : public ::testing::Test {
 protected:
  static whizbang::http::HttpLimits test_limits() {
    whizbang::http::HttpLimits limits;
    limits.head_deadline = std::chrono::milliseconds(200);
    limits.keep_alive_idle = std::chrono::milliseconds(200);
    limits.write_deadline = std::chrono::milliseconds(200);
    return limits;
  }

  void start(whizbang::http::HttpLimits limits = test_limits()) {
    namespace http = whizbang::http;
    http::HttpRoutes routes;
    routes.get("/livez",
               [](const http::HttpRequest&) { return http::HttpResponse::text(200, "ok\n"); });
    routes.get("/readyz",
               [](const http::HttpRequest&) { return http::HttpResponse::text(200, "ready\n"); });
    routes.get("/big", [](const http::HttpRequest&) {
      return http::HttpResponse::text(200, std::string(kBigBody, 'b'));
    });
    auto server = http::HttpServer::start("127.0.0.1", 0, std::move(routes), limits);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  int port() const { return server_->port(); }
  whizbang::http::HttpServer& server() { return *server_; }

 private:
  std::unique_ptr<whizbang::http::HttpServer> server_;
};

}  // namespace http_test
