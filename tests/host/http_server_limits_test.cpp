// The runner's HTTP server under hostile clients (docs/guide/14-running-services.md, "HTTP
// limits"). Each test is an attack that cpp-httplib's server, which the runner used before, did
// not survive; only its 414 for an overlong request line was already right. The tests wait for
// sockets (an answer, EOF, a reset), never for time (a slow client's own pace aside); the
// client's 5 s receive guard only turns a hang into a failure.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http_server_fixture.hpp"
#include "raw_http_client.hpp"

namespace http_test {
namespace {

using namespace std::chrono_literals;

class HttpServerLimitsTests : public HttpServerFixture {};

TEST_F(HttpServerLimitsTests, SlowClients_NeverDelayAnotherClient_AndGet408AtTheirHeadDeadline) {
  whizbang::http::HttpLimits limits = test_limits();
  limits.max_connections_per_client = 32;  // all clients of this test come from 127.0.0.1
  start(limits);
  std::vector<std::unique_ptr<RawHttpClient>> slow;
  for (int i = 0; i < 16; ++i) {
    slow.push_back(std::make_unique<RawHttpClient>(port()));
    ASSERT_TRUE(slow.back()->send("GET /livez HTTP/1.1\r\nHo"));  // ... and nothing more
  }
  RawHttpClient probe(port());
  ASSERT_TRUE(probe.send(kLivez));
  const RawHttpResponse live = probe.read_response();
  EXPECT_EQ(live.status, 200);
  EXPECT_EQ(live.body, "ok\n");
  for (const auto& client : slow) {
    EXPECT_EQ(client->read_response().status, 408);
    EXPECT_TRUE(client->closed_by_server());
  }
}

TEST_F(HttpServerLimitsTests, BodyToAGetPath_413AndClosedWithoutReadingIt) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(
      client.send("GET /livez HTTP/1.1\r\nHost: test\r\nContent-Length: 1073741824\r\n\r\n"));
  client.send(std::string(4096, 'x'));  // (fails once the server has closed: not asserted)
  EXPECT_EQ(client.read_response().status, 413);
  EXPECT_TRUE(client.closed_by_server());

  RawHttpClient chunked(port());
  ASSERT_TRUE(
      chunked.send("GET /livez HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "40000000\r\n"));
  EXPECT_EQ(chunked.read_response().status, 413);
  EXPECT_TRUE(chunked.closed_by_server());
  EXPECT_LE(server().stats().largest_input, test_limits().max_head_bytes);
}

TEST_F(HttpServerLimitsTests, GigabytePostToAGetPath_405AndClosedWithoutReadingIt) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(
      client.send("POST /livez HTTP/1.1\r\nHost: test\r\nContent-Length: 1073741824\r\n\r\n"));
  client.send(std::string(64 * 1024, 'x'));
  const RawHttpResponse refused = client.read_response();
  EXPECT_EQ(refused.status, 405);
  EXPECT_TRUE(refused.has_header("\r\nAllow: GET, HEAD\r\n")) << refused.head;
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_LE(server().stats().largest_input, test_limits().max_head_bytes);
}

TEST_F(HttpServerLimitsTests, HeadOverItsSize_431AndClosed) {
  start();
  std::string request = "GET /livez HTTP/1.1\r\nHost: test\r\n";
  for (int i = 0; i < 20; ++i) {  // 20 KiB of headers, each line well under the line limit
    request.append("X-Filler-").append(std::to_string(i)).append(": ");
    request.append(1000, 'a').append("\r\n");
  }
  request.append("\r\n");
  RawHttpClient client(port());
  client.send(request);
  EXPECT_EQ(client.read_response().status, 431);
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_LE(server().stats().largest_input, test_limits().max_head_bytes);
}

TEST_F(HttpServerLimitsTests, MoreThan64HeaderLines_431AndClosed) {
  start();
  std::string request = "GET /livez HTTP/1.1\r\nHost: test\r\n";
  for (int i = 0; i < 64; ++i) request.append("X-").append(std::to_string(i)).append(": 1\r\n");
  request.append("\r\n");
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(request));
  EXPECT_EQ(client.read_response().status, 431);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(HttpServerLimitsTests, RequestLineOver8KiB_414AndClosed) {
  start();
  RawHttpClient client(port());
  client.send("GET /livez?" + std::string(9000, 'q') + " HTTP/1.1\r\nHost: test\r\n\r\n");
  EXPECT_EQ(client.read_response().status, 414);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(HttpServerLimitsTests, ConnectionsBeyondTheCaps_503AndClosed_TheOthersStayServed) {
  whizbang::http::HttpLimits limits = test_limits();
  limits.max_connections = 3;
  limits.max_connections_per_client = 2;
  limits.head_deadline = 1h;  // the held connections must stay open throughout
  start(limits);
  // The server accepts in connection order: the first ones are counted before the next.
  RawHttpClient first(port());
  RawHttpClient second(port());
  RawHttpClient third_from_same_client(port());
  EXPECT_EQ(third_from_same_client.read_response().status, 503);
  EXPECT_TRUE(third_from_same_client.closed_by_server());
  RawHttpClient other_client(port(), "127.0.0.2");
  RawHttpClient fourth_in_all(port(), "127.0.0.2");
  EXPECT_EQ(fourth_in_all.read_response().status, 503);
  EXPECT_TRUE(fourth_in_all.closed_by_server());

  for (RawHttpClient* client : {&first, &second, &other_client}) {
    ASSERT_TRUE(client->send(kLivez));
    EXPECT_EQ(client->read_response().status, 200);
  }
  // A closed connection frees its place: the server closes before the client sees EOF.
  ASSERT_TRUE(first.send("GET /livez HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(first.read_response().status, 200);
  ASSERT_TRUE(first.closed_by_server());
  RawHttpClient again(port());
  ASSERT_TRUE(again.send(kLivez));
  EXPECT_EQ(again.read_response().status, 200);
}

TEST_F(HttpServerLimitsTests, ClientThatNeverReads_ResetAtTheWriteDeadline) {
  start();
  RawHttpClient client(port(), nullptr, /*receive_buffer=*/64 * 1024);
  ASSERT_TRUE(client.send("GET /big HTTP/1.1\r\nHost: test\r\n\r\n"));
  EXPECT_TRUE(client.hung_up_by_server());
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_TRUE(client.reset_by_server());
  EXPECT_LT(client.received().size(), kBigBody);
}

TEST_F(HttpServerLimitsTests, Stop_ClosesIdleSlowAndMidRequestClientsAtOnce) {
  whizbang::http::HttpLimits limits = test_limits();
  limits.head_deadline = 1h;  // only stop() ends these connections
  limits.keep_alive_idle = 1h;
  start(limits);
  RawHttpClient never_sent(port());
  RawHttpClient kept_alive(port());
  ASSERT_TRUE(kept_alive.send(kLivez));
  ASSERT_EQ(kept_alive.read_response().status, 200);
  RawHttpClient partial_head(port());
  ASSERT_TRUE(partial_head.send("GET /livez HTTP/1.1\r\nHost: te"));
  // A header byte every 50 ms, for up to 20 s: the client that kept cpp-httplib's stop() waiting.
  RawHttpClient dribbling(port());
  ASSERT_TRUE(dribbling.send("GET /livez HTTP/1.1\r\nX-Slow: "));
  bool dribbler_saw_close = false;
  std::thread dribbler(
      [&] { dribbler_saw_close = dribbling.dribble_until_closed(std::string(400, 's'), 50ms); });

  server().stop();
  EXPECT_TRUE(never_sent.closed_by_server());
  EXPECT_TRUE(kept_alive.closed_by_server());
  EXPECT_TRUE(partial_head.closed_by_server());
  dribbler.join();
  EXPECT_TRUE(dribbler_saw_close);
  RawHttpClient after_stop(port());
  EXPECT_FALSE(after_stop.connected());
}

}  // namespace
}  // namespace http_test
