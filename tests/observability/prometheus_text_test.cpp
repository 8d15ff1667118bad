// prometheus_text() over tags, names and help texts a sender controls (a message type is whatever
// the envelope says): every scrape must stay valid text format 0.0.4, valid UTF-8, with no raw
// control character, or one bad series breaks every later scrape of /metrics.
#include "whizbang/observability/prometheus.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/utf8_check.hpp"

namespace {

using whizbang::InMemoryMetrics;
using whizbang::MetricTag;

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7F;
}

// Reads [first][rest]* at `at`: a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or a label name
// ([a-zA-Z_][a-zA-Z0-9_]*). Empty when there is none.
std::string_view read_name(std::string_view line, std::size_t& at, bool colons) {
  const std::size_t start = at;
  while (at < line.size()) {
    const char c = line[at];
    const bool letter =
        std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || (colons && c == ':');
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!letter && !(digit && at > start)) break;
    ++at;
  }
  return line.substr(start, at - start);
}

// Text after HELP or inside a label value: `\\` and `\n` (and in a label value `\"`) are the
// only escapes; a raw control character is refused.
std::string check_escaped(std::string_view text, bool label_value) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_control(text[i])) return "raw control character in '" + std::string(text) + "'";
    if (text[i] != '\\') continue;
    if (i + 1 == text.size()) return "a backslash ends '" + std::string(text) + "'";
    const char next = text[++i];
    if (next != '\\' && next != 'n' && !(label_value && next == '"')) {
      return "invalid escape \\" + std::string(1, next) + " in '" + std::string(text) + "'";
    }
  }
  return "";
}

// "" when `line` is a comment (HELP, TYPE) or a sample `name{k="v",...} value` as the text
// format defines it; else what is wrong.
std::string line_error(std::string_view line) {
  if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
    std::size_t at = 7;
    if (read_name(line, at, true).empty()) return "no metric name after # HELP/TYPE";
    if (at < line.size() && line[at] != ' ') return "junk after the metric name";
    const std::string_view rest = at < line.size() ? line.substr(at + 1) : std::string_view();
    if (line[2] == 'T') return rest == "counter" || rest == "gauge" ? "" : "unknown TYPE";
    return check_escaped(rest, false);
  }
  std::size_t at = 0;
  if (read_name(line, at, true).empty()) return "no metric name";
  if (at < line.size() && line[at] == '{') {
    ++at;
    while (true) {
      if (read_name(line, at, false).empty()) return "no label name";
      if (line.substr(at, 2) != "=\"") return "no =\" after a label name";
      at += 2;
      const std::size_t start = at;
      while (at < line.size() && line[at] != '"') at += line[at] == '\\' ? 2 : 1;
      if (at >= line.size()) return "unterminated label value";
      if (std::string error = check_escaped(line.substr(start, at - start), true); !error.empty()) {
        return error;
      }
      ++at;  // the closing quote
      if (at < line.size() && line[at] == ',') {
        ++at;
        continue;
      }
      if (at < line.size() && line[at] == '}') {
        ++at;
        break;
      }
      return "no , or } after a label value";
    }
  }
  if (at >= line.size() || line[at] != ' ') return "no space before the value";
  const std::string value(line.substr(at + 1));
  char* end = nullptr;
  std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size()) return "the value is not a number";
  return "";
}

void expect_valid_exposition(const std::string& text) {
  EXPECT_TRUE(whizbang_test::is_valid_utf8(text)) << text;
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line_error(line), "") << "line: " << line;
  }
}

// What a hostile sender puts in a message type.
const std::vector<std::string> kHostileValues = {
    "bad \xff\xfe utf8",
    "truncated \xe2\x82",
    "overlong \xc0\xaf slash",
    "surrogate \xed\xa0\x80 half",
    "esc \x1b[31mred\x1b[0m",
    "bell \x07",
    std::string("nul \0 inside", 12),
    "cr \r and lf \n",
    "lone \\",
    "quote \" inside",
    "del \x7f and c1 \xc2\x9b",
};

TEST(PrometheusTextTests, HostileLabelValues_StayValidTextFormat) {
  InMemoryMetrics metrics;
  for (const std::string& value : kHostileValues) {
    const MetricTag tag{"message_type", value};
    metrics.add("Whizbang.WorkCoordinator", "whizbang.work_coordinator.failed", 1, {&tag, 1});
  }
  const std::string text = whizbang::prometheus_text(metrics);
  expect_valid_exposition(text);
  // One series per value: the escaping keeps them apart.
  std::size_t samples = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) samples += line.rfind("whizbang_", 0) == 0;
  EXPECT_EQ(samples, kHostileValues.size()) << text;
}

TEST(PrometheusTextTests, HostileLabelValues_AreShownEscapedNotDropped) {
  InMemoryMetrics metrics;
  for (const std::string value :
       {"esc \x1b[31m", "bad \xff", "lone \\", "shop::OrderCreated", "caf\xc3\xa9"}) {
    const MetricTag tag{"message_type", value};
    metrics.add("M", "x.failed", 1, {&tag, 1});
  }
  const std::string text = whizbang::prometheus_text(metrics);
  // Control and invalid bytes as the visible text \xNN (its backslash escaped for the format).
  EXPECT_NE(text.find(R"(x_failed_total{message_type="esc \\x1b[31m"} 1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(x_failed_total{message_type="bad \\xff"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(x_failed_total{message_type="lone \\"} 1)"), std::string::npos) << text;
  // Ordinary text, valid UTF-8 included, is left as it is.
  EXPECT_NE(text.find(R"(x_failed_total{message_type="shop::OrderCreated"} 1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("x_failed_total{message_type=\"caf\xc3\xa9\"} 1"), std::string::npos) << text;
}

TEST(PrometheusTextTests, HostileNamesAndHelp_StayValidTextFormat) {
  InMemoryMetrics metrics;
  for (const std::string& value : kHostileValues) {
    const MetricTag tag{value, "v"};  // a hostile label name
    metrics.add("Meter " + value, "counter." + value, 1, {&tag, 1});
  }
  const MetricTag empty_key{"", "v"};
  metrics.add("M", "", 1, {&empty_key, 1});
  expect_valid_exposition(whizbang::prometheus_text(
      metrics, {{"whizbang_ready", "help with \x1b[2J, \xff, a \\ and a\nnewline", 1},
                {"9 bad gauge\n", "gauge", 0}}));
}

}  // namespace
