// A dispatcher over the generated test registry, a journal of receptor runs, a recording store
// and captured log lines.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <whizbang/dispatch/dispatcher.hpp>

#include "journal.hpp"
#include "receptors.hpp"
#include "support/log_capture.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace dispatch_test {

// Keeps every outbox row in arrival order; a repeated message id is a duplicate, not a new row.
class RecordingStore : public whizbang::OutboxStore {
 public:
  absl::StatusOr<std::vector<whizbang::StoredOutboxRow>> store_outbox_messages(
      std::span<const whizbang::OutboxMessage> messages) override {
    std::lock_guard lock(mutex_);
    std::vector<whizbang::StoredOutboxRow> out;
    for (const whizbang::OutboxMessage& message : messages) {
      const bool fresh = std::none_of(rows.begin(), rows.end(), [&](const auto& row) {
        return row.message_id == message.message_id;
      });
      if (fresh)
        rows.push_back(message);
      else
        ++duplicates;
      out.push_back({message.message_id, message.stream_id, fresh});
    }
    return out;
  }
  std::vector<whizbang::OutboxMessage> rows_of(std::string_view type) const {
    std::vector<whizbang::OutboxMessage> out;
    for (const auto& row : rows) {
      if (row.message_type == type) out.push_back(row);
    }
    return out;
  }

  std::vector<whizbang::OutboxMessage> rows;
  int duplicates = 0;

 private:
  std::mutex mutex_;
};

class DispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.add<Journal>(journal_);
    services_.add<DispatcherSlot>(slot_);
    logger_ = log_.logger;
    dispatcher_ = make_dispatcher("orders");
    slot_.dispatcher = dispatcher_.get();
  }

  std::unique_ptr<whizbang::Dispatcher> make_dispatcher(std::string service_name,
                                                        whizbang::OutboxStore* store = nullptr) {
    whizbang::DispatcherOptions options;
    options.self.service_name = std::move(service_name);
    options.self.instance_id = whizbang::MessageId::mint().uuid();
    options.store = store != nullptr ? store : &store_;
    options.logger = logger_;
    auto dispatcher = whizbang::Dispatcher::create(
        whizbang::generated::whizbang_dispatch_tests::registry(), services_, std::move(options));
    EXPECT_TRUE(dispatcher.ok()) << dispatcher.status();
    return *std::move(dispatcher);
  }

  std::vector<std::string> log_lines() const { return log_.lines(); }
  std::vector<std::string> logs_containing(std::string_view text) const {
    std::vector<std::string> out;
    for (const auto& line : log_lines()) {
      if (line.find(text) != std::string::npos) out.push_back(line);
    }
    return out;
  }

  Journal journal_;
  DispatcherSlot slot_;
  RecordingStore store_;
  whizbang::ServiceRegistry services_;
  whizbang_test::LogCapture log_;
  std::shared_ptr<spdlog::logger> logger_;
  std::unique_ptr<whizbang::Dispatcher> dispatcher_;
};

// The WhoAmI command tagged `tag` (its receptor cascades the tag into its results).
inline WhoAmI who(std::string tag) {
  WhoAmI command;
  command.tag = std::move(tag);
  return command;
}

}  // namespace dispatch_test
