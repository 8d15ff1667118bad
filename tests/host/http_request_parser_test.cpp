// HttpRequestParser (runtime/src/host/http): request heads read a piece at a time, the limits at
// their exact boundaries, and what the headers say about the connection and the body.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "host/http/http_request_parser.hpp"

namespace http_test {
namespace {

using whizbang::http::HttpLimits;
using whizbang::http::HttpParseState;
using whizbang::http::HttpRequestParser;

TEST(HttpRequestParserTests, ByteAtATime_TheSameRequestAsAllAtOnce) {
  const std::string head =
      "\r\nGET http://example.com:8080/metrics?x=1 HTTP/1.1\r\nHost: example.com\r\n"
      "X-Spaces: \t padded \t\r\nContent-Length: 0\n\r\n";
  HttpRequestParser parser{HttpLimits{}};
  std::string input;
  for (std::size_t i = 0; i + 1 < head.size(); ++i) {
    input.push_back(head[i]);
    ASSERT_EQ(parser.parse(input), HttpParseState::NeedMore) << i;
  }
  input.push_back(head.back());
  input.append("GET /next");  // a pipelined request's start stays for the next parse
  ASSERT_EQ(parser.parse(input), HttpParseState::Complete);
  EXPECT_EQ(parser.head_size(), head.size());
  const auto& request = parser.request();
  EXPECT_EQ(request.method, "GET");
  EXPECT_EQ(request.path, "/metrics");
  EXPECT_EQ(request.query, "x=1");
  EXPECT_EQ(request.minor_version, 1);
  ASSERT_NE(request.header("x-SPACES"), nullptr);
  EXPECT_EQ(*request.header("x-SPACES"), "padded");
  EXPECT_EQ(request.content_length, 0u);
  EXPECT_FALSE(request.has_body());
  EXPECT_TRUE(request.keep_alive);

  parser.reset();
  EXPECT_EQ(parser.parse("GET /next"), HttpParseState::NeedMore);
}

TEST(HttpRequestParserTests, HeadOfExactlyTheLimit_Complete_OneByteMore_431) {
  HttpLimits limits;
  limits.max_head_bytes = 64;
  const std::string start = "GET / HTTP/1.1\r\nHost: h\r\nX: ";
  const std::string fits = start + std::string(64 - start.size() - 4, 'a') + "\r\n\r\n";
  ASSERT_EQ(fits.size(), 64u);
  HttpRequestParser parser(limits);
  EXPECT_EQ(parser.parse(fits), HttpParseState::Complete);
  HttpRequestParser over(limits);
  const std::string too_long = start + std::string(64 - start.size() - 3, 'a') + "\r\n\r\n";
  EXPECT_EQ(over.parse(too_long), HttpParseState::Failed);
  EXPECT_EQ(over.failure().status, 431);
  // Without waiting for the head's end: the limit applies to what has arrived.
  HttpRequestParser unfinished(limits);
  EXPECT_EQ(unfinished.parse(start + std::string(64, 'a')), HttpParseState::Failed);
  EXPECT_EQ(unfinished.failure().status, 431);
}

TEST(HttpRequestParserTests, RequestLineOfExactlyTheLimit_Read_OneByteMore_414BeforeItsEnd) {
  HttpLimits limits;
  limits.max_request_line_bytes = 32;
  const std::string line = "GET /" + std::string(32 - 14, 'p') + " HTTP/1.1";
  ASSERT_EQ(line.size(), 32u);
  HttpRequestParser parser(limits);
  EXPECT_EQ(parser.parse(line + "\r\n"), HttpParseState::NeedMore);
  HttpRequestParser over(limits);
  EXPECT_EQ(over.parse("GET /" + std::string(40, 'p')), HttpParseState::Failed);
  EXPECT_EQ(over.failure().status, 414);
}

TEST(HttpRequestParserTests, HeaderLinesUpToTheLimit_Read_OneMore_431) {
  HttpLimits limits;
  limits.max_header_lines = 3;
  HttpRequestParser parser(limits);
  EXPECT_EQ(parser.parse("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n"),
            HttpParseState::Complete);
  HttpRequestParser over(limits);
  EXPECT_EQ(over.parse("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n"),
            HttpParseState::Failed);
  EXPECT_EQ(over.failure().status, 431);
}

TEST(HttpRequestParserTests, KeepAlive_ByVersionAndConnectionHeader) {
  const struct {
    std::string_view head;
    bool keep_alive;
  } cases[] = {
      {"GET / HTTP/1.1\r\nHost: h\r\n\r\n", true},
      {"GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, Close\r\n\r\n", false},
      {"GET / HTTP/1.0\r\n\r\n", false},
      {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true},
      {"GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false},
  };
  for (const auto& c : cases) {
    HttpRequestParser parser{HttpLimits{}};
    ASSERT_EQ(parser.parse(c.head), HttpParseState::Complete) << c.head;
    EXPECT_EQ(parser.request().keep_alive, c.keep_alive) << c.head;
  }
}

TEST(HttpRequestParserTests, Body_FromContentLengthOrTransferEncoding) {
  HttpRequestParser same_twice{HttpLimits{}};
  ASSERT_EQ(same_twice.parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n"
                             "content-length: 5\r\n\r\n"),
            HttpParseState::Complete);
  EXPECT_EQ(same_twice.request().content_length, 5u);
  EXPECT_TRUE(same_twice.request().has_body());
  HttpRequestParser chunked{HttpLimits{}};
  ASSERT_EQ(chunked.parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"),
            HttpParseState::Complete);
  EXPECT_TRUE(chunked.request().has_body());
  HttpRequestParser http10_chunked{HttpLimits{}};
  EXPECT_EQ(http10_chunked.parse("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"),
            HttpParseState::Failed);
  EXPECT_EQ(http10_chunked.failure().status, 400);
}

}  // namespace
}  // namespace http_test
