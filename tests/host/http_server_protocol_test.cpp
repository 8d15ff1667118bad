// The runner's HTTP server speaking HTTP/1.0 and 1.1 (docs/guide/14-running-services.md):
// keep-alive, HEAD, 404 and 405, pipelining, and malformed requests answered 400 without harm to
// the server or to other clients.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "http_server_fixture.hpp"
#include "raw_http_client.hpp"

namespace http_test {
namespace {

using namespace std::string_view_literals;

class HttpServerProtocolTests : public HttpServerFixture {};

TEST_F(HttpServerProtocolTests, KeepAlive_TwoRequestsOnOneConnection) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(kLivez));
  const RawHttpResponse first = client.read_response();
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.body, "ok\n");
  EXPECT_TRUE(first.has_header("\r\nContent-Type: text/plain\r\n")) << first.head;
  EXPECT_TRUE(first.has_header("\r\nConnection: keep-alive\r\n")) << first.head;
  ASSERT_TRUE(client.send("GET /readyz HTTP/1.1\r\nHost: test\r\n\r\n"));
  EXPECT_EQ(client.read_response().body, "ready\n");
}

TEST_F(HttpServerProtocolTests, KeptAliveConnection_ClosedOnceIdleTooLong) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(kLivez));
  EXPECT_EQ(client.read_response().status, 200);
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_TRUE(client.received().empty());
}

TEST_F(HttpServerProtocolTests, ClientThatSendsNothing_ClosedWithoutAnAnswerAtTheHeadDeadline) {
  start();
  RawHttpClient client(port());
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_TRUE(client.received().empty());
}

TEST_F(HttpServerProtocolTests, ConnectionClose_AndHttp10_ClosedAfterTheResponse) {
  start();
  RawHttpClient closing(port());
  ASSERT_TRUE(closing.send("GET /livez HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(closing.read_response().has_header("\r\nConnection: close\r\n"));
  EXPECT_TRUE(closing.closed_by_server());

  RawHttpClient http10(port());
  ASSERT_TRUE(http10.send("GET /livez HTTP/1.0\r\n\r\n"));
  EXPECT_EQ(http10.read_response().status, 200);
  EXPECT_TRUE(http10.closed_by_server());

  RawHttpClient http10_kept(port());
  ASSERT_TRUE(http10_kept.send("GET /livez HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
  EXPECT_TRUE(http10_kept.read_response().has_header("\r\nConnection: keep-alive\r\n"));
  ASSERT_TRUE(http10_kept.send("GET /readyz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  EXPECT_EQ(http10_kept.read_response().body, "ready\n");
}

TEST_F(HttpServerProtocolTests, HeaderNames_AreCaseInsensitive) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send("GET /livez HTTP/1.1\r\nhOsT: test\r\nCONNECTION: CLOSE\r\n\r\n"));
  EXPECT_EQ(client.read_response().status, 200);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(HttpServerProtocolTests, Head_TheGetHeadersWithoutTheBody) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send("HEAD /livez HTTP/1.1\r\nHost: test\r\n\r\n"));
  const RawHttpResponse head = client.read_response(/*head_request=*/true);
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.has_header("\r\nContent-Length: 3\r\n")) << head.head;
  // No body followed: the next response starts right after the head.
  ASSERT_TRUE(client.send(kLivez));
  EXPECT_EQ(client.read_response().body, "ok\n");
}

TEST_F(HttpServerProtocolTests, UnknownPath_404_AndTheConnectionStaysUsable) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send("GET /nope HTTP/1.1\r\nHost: test\r\n\r\n"));
  EXPECT_EQ(client.read_response().status, 404);
  ASSERT_TRUE(client.send("GET /livez?verbose=1 HTTP/1.1\r\nHost: test\r\n\r\n"));
  EXPECT_EQ(client.read_response().status, 200);  // the query is not part of the path
}

TEST_F(HttpServerProtocolTests, WrongMethod_405WithAllow) {
  start();
  RawHttpClient client(port());
  for (std::string_view method : {"POST"sv, "DELETE"sv, "get"sv}) {
    ASSERT_TRUE(client.send(std::string(method) + " /livez HTTP/1.1\r\nHost: test\r\n\r\n"));
    const RawHttpResponse refused = client.read_response();
    EXPECT_EQ(refused.status, 405) << method;
    EXPECT_TRUE(refused.has_header("\r\nAllow: GET, HEAD\r\n")) << refused.head;
  }
}

TEST_F(HttpServerProtocolTests, Pipelined_AnsweredInOrder) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(
      client.send("GET /livez HTTP/1.1\r\nHost: test\r\n\r\n"
                  "HEAD /readyz HTTP/1.1\r\nHost: test\r\n\r\n"
                  "GET /nope HTTP/1.1\r\nHost: test\r\n\r\n"
                  "GET /readyz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(client.read_response().body, "ok\n");
  EXPECT_TRUE(client.read_response(/*head_request=*/true).has_header("Content-Length: 6\r\n"));
  EXPECT_EQ(client.read_response().status, 404);
  EXPECT_EQ(client.read_response().body, "ready\n");
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(HttpServerProtocolTests, MalformedRequests_400AndClosed_TheServerKeepsServing) {
  start();
  const std::string_view malformed[] = {
      "GARBAGE\r\n\r\n",
      "GET /livez\r\nHost: test\r\n\r\n",
      "GET  /livez HTTP/1.1\r\nHost: test\r\n\r\n",
      "GET /livez HTTP/1.1 \r\nHost: test\r\n\r\n",
      "GET /li\0vez HTTP/1.1\r\nHost: test\r\n\r\n"sv,
      "GET /livez HTTP/1.1\r\nHost: test\r\nX-Nul: a\0b\r\n\r\n"sv,
      "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: test\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: test\r\nContent-Length: abc\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: test\r\nContent-Length: -1\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: test\r\nContent-Length: 99999999999999999999999\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: test\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "POST /livez HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: test\r\nBad Name: v\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: test\r\nX-Folded: a\r\n b\r\n\r\n",
      "GET /livez HTTP/1.1\r\nHost: test\r\nNoColon\r\n\r\n",
      "GET /livez HTTP/1.1\r\n\r\n",  // HTTP/1.1 without Host
      "GET /livez HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
      "GET /livez HTTP/1.1\rHost: test\r\n\r\n",
      "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"sv,  // a TLS ClientHello's start
  };
  for (const std::string_view request : malformed) {
    RawHttpClient client(port());
    client.send(request);
    EXPECT_EQ(client.read_response().status, 400) << testing::PrintToString(std::string(request));
    EXPECT_TRUE(client.closed_by_server()) << testing::PrintToString(std::string(request));
  }
  RawHttpClient unsupported(port());
  ASSERT_TRUE(unsupported.send("GET /livez HTTP/2.0\r\nHost: test\r\n\r\n"));
  EXPECT_EQ(unsupported.read_response().status, 505);
  RawHttpClient still_served(port());
  ASSERT_TRUE(still_served.send(kLivez));
  EXPECT_EQ(still_served.read_response().status, 200);
}

}  // namespace
}  // namespace http_test
