// An inbox worker over one delivered message whose handling does what the test says, on every
// store backend: the fixture of the failure suites (transient failures, retry policies).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>

#include "store_backends.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {

template <class Backend>
class OneMessageInboxTest : public BackendStoreTest<Backend> {
 protected:
  // A worker with `options` whose handling counts its calls and returns `outcome()`; the message
  // is delivered to it.
  void make_worker(whizbang::InboxWorkerOptions options, std::function<absl::Status()> outcome) {
    worker_ = std::make_unique<whizbang::InboxWorker>(
        *this->store_, resolve,
        [this, outcome = std::move(outcome)](whizbang::InboxHandling&) {
          ++calls_;
          return outcome();
        },
        options);
    ASSERT_TRUE(worker_->receive({&message_, 1}).ok());
  }
  whizbang::InboxCycleResult cycle() {
    auto result = worker_->run_once();
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : whizbang::InboxCycleResult{};
  }
  std::optional<whizbang::InboxRow> row() {
    auto found = whizbang::reader_of(*this->store_)->find_inbox_row(message_.message_id);
    EXPECT_TRUE(found.ok());
    return found.ok() ? *found : std::nullopt;
  }

  const whizbang::TransportMessage message_ =
      transport_message(outbox_message(OrderCreated{"o-1", 1}, "orders"));
  int calls_ = 0;
  std::unique_ptr<whizbang::InboxWorker> worker_;
};

}  // namespace store_test
