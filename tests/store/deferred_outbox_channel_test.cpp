#include "whizbang/dispatch/deferred_outbox_channel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "store_test_support.hpp"

namespace store_test {
namespace {

using namespace whizbang;

OutboxMessage numbered(int n) {
  OutboxMessage message;
  message.message_id = MessageId::mint();
  message.message_type = "m" + std::to_string(n);
  message.is_event = true;
  return message;
}

TEST(DeferredOutboxChannelTests, DrainAll_ReturnsQueuedMessagesInFifoOrderOnce) {
  DeferredOutboxChannel channel;
  EXPECT_FALSE(channel.has_pending());
  EXPECT_TRUE(channel.drain_all().empty());
  std::vector<MessageId> ids;
  for (int i = 0; i < 5; ++i) {
    OutboxMessage message = numbered(i);
    ids.push_back(message.message_id);
    channel.queue(std::move(message));
  }
  EXPECT_TRUE(channel.has_pending());
  std::vector<OutboxMessage> drained = channel.drain_all();
  ASSERT_EQ(drained.size(), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(drained[static_cast<std::size_t>(i)].message_id, ids[static_cast<std::size_t>(i)]);
  EXPECT_FALSE(channel.has_pending());
  EXPECT_TRUE(channel.drain_all().empty()) << "a second drain returns nothing again";
}

TEST(DeferredOutboxChannelTests, ConcurrentWriters_LoseNothingAndKeepEachWritersOrder) {
  DeferredOutboxChannel channel;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        OutboxMessage message;
        message.message_id = MessageId::mint();
        message.message_type = std::to_string(t) + ":" + std::to_string(i);
        channel.queue(std::move(message));
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  std::vector<OutboxMessage> drained = channel.drain_all();
  ASSERT_EQ(drained.size(), static_cast<std::size_t>(kThreads * kPerThread));
  std::vector<int> next(kThreads, 0);
  for (const OutboxMessage& message : drained) {
    const int t = std::stoi(message.message_type.substr(0, message.message_type.find(':')));
    const int i = std::stoi(message.message_type.substr(message.message_type.find(':') + 1));
    EXPECT_EQ(i, next[static_cast<std::size_t>(t)]++);
  }
}

TEST(DeferredOutboxChannelTests, DrainWhileWriting_ReturnsEachMessageExactlyOnce) {
  DeferredOutboxChannel channel;
  constexpr int kMessages = 20000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < kMessages; ++i) channel.queue(numbered(i));
    done = true;
  });
  std::set<MessageId> seen;
  std::size_t total = 0;
  while (!done.load() || channel.has_pending()) {
    for (const OutboxMessage& message : channel.drain_all()) {
      seen.insert(message.message_id);
      ++total;
    }
  }
  writer.join();
  for (const OutboxMessage& message : channel.drain_all()) {
    seen.insert(message.message_id);
    ++total;
  }
  EXPECT_EQ(total, static_cast<std::size_t>(kMessages));
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kMessages));
}

TEST(DeferredOutboxChannelTests, Queue_SignalsTheWakeUp) {
  DeferredOutboxChannel channel;
  int wakes = 0;
  channel.set_wake([&] { ++wakes; });
  channel.queue(numbered(1));
  channel.queue(numbered(2));
  EXPECT_EQ(wakes, 2);
}

}  // namespace
}  // namespace store_test
