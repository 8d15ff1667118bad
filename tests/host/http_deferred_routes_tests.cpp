// The HTTP server's deferred routes (runtime/src/host/http): handlers on the worker thread, so a
// handler that waits (a slow store) never delays /livez; bounded request bodies read within a
// deadline, 413 beyond the limit before a byte of the body is read; prefix routes; query strings.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>

#include "host/http/http_query.hpp"
#include "host/http/http_server.hpp"
#include "raw_http_client.hpp"

namespace http_test {
namespace {

namespace http = whizbang::http;
using namespace std::chrono_literals;

// A gate a handler waits at until the test opens it (a store that does not answer).
class Gate {
 public:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    entered_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
  }
  bool wait_entered() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, 5s, [&] { return entered_; });
  }
  void open() {
    const std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool entered_ = false;
  bool open_ = false;
};

class HttpDeferredRoutesTests : public ::testing::Test {
 protected:
  void SetUp() override {
    http::HttpRoutes routes;
    routes.get("/livez",
               [](const http::HttpRequest&) { return http::HttpResponse::text(200, "ok\n"); });
    routes.add_deferred("GET", "/slow", [this](const http::HttpRequest&) {
      gate_.wait();
      return http::HttpResponse::text(200, "slow\n");
    });
    routes.add_deferred(
        "POST", "/echo",
        [](const http::HttpRequest& request) {
          return http::HttpResponse::text(200, request.body);
        },
        64);
    routes.add_prefix_deferred("GET", "/items/", [](const http::HttpRequest& request) {
      return http::HttpResponse::text(200, request.path);
    });
    routes.add_deferred("GET", "/items/special", [](const http::HttpRequest&) {
      return http::HttpResponse::text(200, "special");
    });
    http::HttpLimits limits;
    limits.body_deadline = 200ms;
    limits.keep_alive_idle = 2s;
    auto server = http::HttpServer::start("127.0.0.1", 0, std::move(routes), limits);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  void TearDown() override {
    gate_.open();
    server_->stop();
  }

  Gate gate_;
  std::unique_ptr<http::HttpServer> server_;
};

TEST_F(HttpDeferredRoutesTests, SlowHandler_ProbesStillAnswerAtOnce) {
  RawHttpClient slow(server_->port());
  ASSERT_TRUE(slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n"));
  ASSERT_TRUE(gate_.wait_entered()) << "the handler runs on the worker";
  RawHttpClient probe(server_->port());
  ASSERT_TRUE(probe.send("GET /livez HTTP/1.1\r\nHost: t\r\n\r\n"));
  EXPECT_EQ(probe.read_response().status, 200) << "answered while the worker waits";
  gate_.open();
  const RawHttpResponse answer = slow.read_response();
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, "slow\n");
}

TEST_F(HttpDeferredRoutesTests, BodyWithinTheLimit_ReachesTheHandler_ConnectionKeptAlive) {
  RawHttpClient client(server_->port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhel"));
  ASSERT_TRUE(client.send("lo"));
  RawHttpResponse echoed = client.read_response();
  EXPECT_EQ(echoed.status, 200);
  EXPECT_EQ(echoed.body, "hello");
  ASSERT_TRUE(client.send("GET /livez HTTP/1.1\r\nHost: t\r\n\r\n"));
  EXPECT_EQ(client.read_response().status, 200) << "the next request on the same connection";
}

TEST_F(HttpDeferredRoutesTests, BodyOverTheLimit_413BeforeItIsRead) {
  RawHttpClient client(server_->port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 65\r\n\r\n"));
  const RawHttpResponse refused = client.read_response();
  EXPECT_EQ(refused.status, 413);
  EXPECT_TRUE(client.closed_by_server());
  RawHttpClient chunked(server_->port());
  ASSERT_TRUE(chunked.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"));
  EXPECT_EQ(chunked.read_response().status, 400);
  RawHttpClient no_body_route(server_->port());
  ASSERT_TRUE(no_body_route.send("GET /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"));
  EXPECT_EQ(no_body_route.read_response().status, 413);
}

TEST_F(HttpDeferredRoutesTests, BodyNeverCompleted_408AtTheBodyDeadline) {
  RawHttpClient client(server_->port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"));
  EXPECT_EQ(client.read_response().status, 408);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(HttpDeferredRoutesTests, PrefixRoutes_ExactPathFirstThenTheLongestPrefix) {
  RawHttpClient client(server_->port());
  ASSERT_TRUE(client.send("GET /items/inbox/42 HTTP/1.1\r\nHost: t\r\n\r\n"));
  EXPECT_EQ(client.read_response().body, "/items/inbox/42");
  ASSERT_TRUE(client.send("GET /items/special HTTP/1.1\r\nHost: t\r\n\r\n"));
  EXPECT_EQ(client.read_response().body, "special");
  ASSERT_TRUE(client.send("POST /items/x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_EQ(client.read_response().status, 405);
}

TEST(HttpQueryTests, PairsPercentDecoded_MalformedEscapesRefused) {
  auto query = http::parse_query("source=inbox&error=broker%20down+now&&flag&x=%41%2f");
  ASSERT_TRUE(query.ok()) << query.status();
  ASSERT_EQ(query->size(), 4u);
  EXPECT_EQ((*query)[0], (std::pair<std::string, std::string>{"source", "inbox"}));
  EXPECT_EQ((*query)[1].second, "broker down now");
  EXPECT_EQ((*query)[2], (std::pair<std::string, std::string>{"flag", ""}));
  EXPECT_EQ((*query)[3].second, "A/");
  EXPECT_FALSE(http::parse_query("a=%4").ok());
  EXPECT_FALSE(http::parse_query("a=%zz").ok());
  EXPECT_FALSE(http::parse_query("a=%00").ok());
}

}  // namespace
}  // namespace http_test
