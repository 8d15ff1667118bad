// LifetimeTests: a subscription or commit listener that was removed is never called again, also
// while another thread is publishing or committing: removal waits for calls in flight, so what
// the callback captured may be destroyed as soon as removal returns.
#include <whizbang/store/memory_work_store.hpp>

#include <atomic>
#include <thread>

#include "fault_fixture.hpp"

namespace faults {
namespace {

constexpr int kRounds = 2000;

TEST(LifetimeTests, RemovedSubscription_IsNeverCalledAgain) {
  whizbang::InProcessTransport transport(/*history=*/0);
  std::atomic<bool> stop{false};
  std::thread publisher([&] {
    const whizbang::TransportMessage message{whizbang::MessageId::mint(), "faults::OrderShipped",
                                             "{}", std::nullopt, true};
    while (!stop.load()) {
      (void)transport.publish({"orders", "faults.ordershipped", {}}, {&message, 1});
    }
  });
  std::atomic<int> calls_after_removal{0};
  for (int round = 0; round < kRounds; ++round) {
    auto removed = std::make_shared<std::atomic<bool>>(false);
    auto called = std::make_shared<std::atomic<int>>(0);
    auto subscription = transport.subscribe(
        "listener", {{"orders", ""}},
        [removed, called, &calls_after_removal](const whizbang::TransportDestination&,
                                                std::span<const whizbang::TransportMessage>) {
          ++*called;
          std::this_thread::yield();  // widen the window a removal can fall into
          if (removed->load()) ++calls_after_removal;
          return absl::OkStatus();
        });
    ASSERT_TRUE(subscription.ok());
    while (called->load() == 0) std::this_thread::yield();  // the publisher is calling it
    subscription->reset();
    removed->store(true);  // what the handler captured is "gone" from here on
  }
  stop = true;
  publisher.join();
  EXPECT_EQ(calls_after_removal.load(), 0);
}

TEST(LifetimeTests, RemovedCommitListener_IsNeverCalledAgain) {
  whizbang::MemoryWorkStore store;
  std::atomic<bool> stop{false};
  std::thread committer([&] {
    while (!stop.load()) {
      whizbang::OutboxMessage row;
      row.message_id = whizbang::MessageId::mint();
      row.message_type = "faults::OrderShipped";
      row.envelope_json = "{}";
      (void)store.store_outbox_messages({&row, 1});
    }
  });
  std::atomic<int> calls_after_removal{0};
  for (int round = 0; round < kRounds; ++round) {
    auto removed = std::make_shared<std::atomic<bool>>(false);
    auto called = std::make_shared<std::atomic<int>>(0);
    const int id = store.add_commit_listener(
        [removed, called, &calls_after_removal](const whizbang::CommitInfo&) {
          ++*called;
          std::this_thread::yield();  // widen the window a removal can fall into
          if (removed->load()) ++calls_after_removal;
        });
    while (called->load() == 0) std::this_thread::yield();  // the committer is calling it
    store.remove_commit_listener(id);
    removed->store(true);
  }
  stop = true;
  committer.join();
  EXPECT_EQ(calls_after_removal.load(), 0);
}

}  // namespace
}  // namespace faults
