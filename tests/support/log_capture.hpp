// LogCapture: a logger whose formatted lines a test can search, for EventId and message checks.
//
//   whizbang_test::LogCapture log;
//   options.logger = log.logger;
//   ...
//   EXPECT_EQ(log.count("[141]"), 1);
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/logger.h>
#include <spdlog/sinks/ringbuffer_sink.h>

namespace whizbang_test {

struct LogCapture {
  explicit LogCapture(std::size_t capacity = 4000)
      : sink(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(capacity)),
        logger(std::make_shared<spdlog::logger>("test", sink)) {
    logger->set_level(spdlog::level::debug);
  }

  std::vector<std::string> lines() const { return sink->last_formatted(); }
  // How many captured lines contain `text`.
  int count(std::string_view text) const {
    int n = 0;
    for (const std::string& line : sink->last_formatted())
      n += line.find(text) != std::string::npos;
    return n;
  }

  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink;
  std::shared_ptr<spdlog::logger> logger;
};

}  // namespace whizbang_test
