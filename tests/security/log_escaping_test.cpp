// Strings in log lines are escaped: a sender's type name cannot forge a log line or drive the
// operator's terminal.
#include <gtest/gtest.h>

#include <string>

#include "support/log_capture.hpp"
#include "support/utf8_check.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {
namespace {

TEST(LogEscapingTests, ControlCharactersInArguments_AreWrittenAsEscapes) {
  whizbang_test::LogCapture captured;
  const std::string type = "shop::Order\n[EventId 18 ReceptorAlreadyFiredSkip] forged\x1b[2J\x7f";
  const std::string_view view = type;
  log(captured.logger, spdlog::level::warn, log_events::kStoredRowQuarantined, "type {} / {} / {}",
      type, view,
      "c1:\xc2\x9b"
      "31m");
  const std::vector<std::string> lines = captured.lines();
  ASSERT_EQ(lines.size(), 1u);
  std::string line = lines.front();
  if (!line.empty() && line.back() == '\n') line.pop_back();  // the sink's end of line
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  EXPECT_EQ(line.find("\xc2\x9b"), std::string::npos) << line;
  EXPECT_NE(line.find(R"(shop::Order\x0a[EventId 18 ReceptorAlreadyFiredSkip] forged\x1b[2J\x7f)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(R"(c1:\x9b31m)"), std::string::npos) << line;
}

TEST(LogEscapingTests, InvalidUtf8InArguments_IsWrittenAsHexAndTheLineStaysValidUtf8) {
  whizbang_test::LogCapture captured;
  const std::string type = "shop::\xff\xfeOrder \xe2\x82 \xed\xa0\x80 caf\xc3\xa9";
  log(captured.logger, spdlog::level::warn, log_events::kStoredRowQuarantined, "type {}", type);
  ASSERT_EQ(captured.lines().size(), 1u);
  const std::string line = captured.lines().front();
  EXPECT_TRUE(whizbang_test::is_valid_utf8(line)) << line;
  EXPECT_NE(line.find(R"(type shop::\xff\xfeOrder \xe2\x82 \xed\xa0\x80 caf)"
                      "\xc3\xa9"),
            std::string::npos)
      << line;
}

TEST(LogEscapingTests, OrdinaryTextAndOtherArguments_AreUnchanged) {
  whizbang_test::LogCapture captured;
  log(captured.logger, spdlog::level::info, log_events::kRetentionPurged, "{} rows of {} ({:>5}) ü",
      42, std::string("wh_inbox"), std::string_view("x"));
  ASSERT_EQ(captured.lines().size(), 1u);
  EXPECT_NE(captured.lines().front().find("42 rows of wh_inbox (    x) ü"), std::string::npos)
      << captured.lines().front();
}

}  // namespace
}  // namespace whizbang
