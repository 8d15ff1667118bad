// RabbitMqTransport through broker restarts: a graceful stop (clients get CONNECTION_FORCED) and
// a SIGKILL of the broker's VM, each followed by a restart on the same data. The transport must
// report not-ready while the broker is gone, come back by itself, and lose nothing it confirmed.
// The broker is this suite's own (a CTest fixture on ports of its own, tests/transport/
// CMakeLists.txt), so the other suites' broker is never disturbed; each test leaves it running.
#include <gtest/gtest.h>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <cstdlib>
#include <set>
#include <thread>

#include "spdlog/sinks/stdout_sinks.h"

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

bool broker(const std::string& command) {
  const std::string line = std::string(WHIZBANG_RMQ_SERVER_SCRIPT) + " " + command + " " +
                           WHIZBANG_RMQ_RESTART_DIR + " " +
                           std::to_string(WHIZBANG_RMQ_RESTART_PORT) + " >/dev/null";
  return std::system(line.c_str()) == 0;
}

// Waits until `ready()` says `want` (a state, read as it changes; there is no event for it).
template <class Ready>
bool becomes(Ready ready, bool want, std::chrono::seconds timeout = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (ready() != want) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

class RabbitMqRestartTests : public ::testing::Test {
 protected:
  RabbitMqOptions options() {
    RabbitMqOptions options = test_rabbitmq_options("amqp://guest:guest@127.0.0.1:" +
                                                    std::to_string(WHIZBANG_RMQ_RESTART_PORT));
    options.heartbeat = std::chrono::seconds(2);
    // The transport's warnings (connection lost, requeued, reconnected) go to the test's output,
    // so a failure shows what the transport went through.
    options.logger = std::make_shared<spdlog::logger>(
        "rabbitmq-restart", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    options.logger->set_level(spdlog::level::debug);
    return options;
  }

  // Publishes `count` messages one batch at a time; a failed batch is published again, as the
  // outbox does. Returns the ids the broker confirmed.
  static std::vector<MessageId> publish_until_confirmed(Transport& transport,
                                                        const std::string& exchange, int count) {
    std::vector<MessageId> confirmed;
    for (int i = 0; i < count; ++i) {
      const TransportMessage message = test_message("shop::events::Restarted", true);
      while (!transport.publish({exchange, "shop.events.restarted", {}}, {&message, 1}).ok()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the outbox's retry delay
      }
      confirmed.push_back(message.message_id);
    }
    return confirmed;
  }
};

void expect_every_confirmed_id_received(const std::vector<MessageId>& confirmed,
                                        const Received& received) {
  std::set<MessageId> got;
  for (const TransportMessage& message : received.messages()) got.insert(message.message_id);
  for (std::size_t i = 0; i < confirmed.size(); ++i) {
    EXPECT_TRUE(got.contains(confirmed[i]))
        << "confirmed #" << i << " " << confirmed[i].to_string();
  }
}

TEST_F(RabbitMqRestartTests, GracefulRestart_NotReadyWhileDown_SubscriptionResumes_NothingLost) {
  RabbitMqTransport transport(options());
  const std::string exchange = unique_name("shop.events");
  Received received;
  auto subscription =
      transport.subscribe(unique_name("survivor"), {{exchange, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  std::vector<MessageId> confirmed = publish_until_confirmed(transport, exchange, 20);
  ASSERT_TRUE(received.wait_for(20));

  ASSERT_TRUE(broker("stop"));
  EXPECT_TRUE(becomes([&] { return transport.is_ready(); }, false));
  const TransportMessage during = test_message("shop::events::Restarted", true);
  EXPECT_FALSE(transport.publish({exchange, "shop.events.restarted", {}}, {&during, 1}).ok());

  ASSERT_TRUE(broker("start"));
  EXPECT_TRUE(becomes([&] { return transport.is_ready(); }, true));
  for (const MessageId& id : publish_until_confirmed(transport, exchange, 20)) {
    confirmed.push_back(id);
  }
  // Generous: under a sanitizer, beside other suites, a broker restart and the reconnects that
  // follow took longer than the default wait.
  EXPECT_TRUE(received.wait_for(confirmed.size(), std::chrono::seconds(90)))
      << received.count() << " of " << confirmed.size() << " arrived";
  expect_every_confirmed_id_received(confirmed, received);
}

TEST_F(RabbitMqRestartTests, BrokerKilledUnderLoad_ConfirmedMessagesSurvive_Redelivered) {
  RabbitMqTransport transport(options());
  const std::string exchange = unique_name("shop.events");
  const std::string service = unique_name("survivor");
  Received received;
  std::atomic<bool> hold{true};
  std::mutex held_mutex;
  std::condition_variable held_cv;
  std::size_t held = 0;
  {
    // Declare the queue, then leave it: what follows is stored durably, unconsumed.
    auto declare = transport.subscribe(service, {{exchange, ""}}, received.handler());
    ASSERT_TRUE(declare.ok());
  }
  std::vector<MessageId> confirmed = publish_until_confirmed(transport, exchange, 50);
  // A consumer that holds its first batch unacknowledged while the broker dies.
  auto subscription =
      transport.subscribe(service, {{exchange, ""}}, received.handler([&](const TransportMessage&) {
        if (!hold.load()) return absl::OkStatus();
        {
          std::lock_guard lock(held_mutex);
          ++held;
        }
        held_cv.notify_all();
        return absl::UnavailableError("holding until the broker is gone");
      }));
  ASSERT_TRUE(subscription.ok());
  {
    std::unique_lock lock(held_mutex);
    ASSERT_TRUE(held_cv.wait_for(lock, std::chrono::seconds(20), [&] { return held > 0; }));
  }
  ASSERT_TRUE(broker("crash"));
  hold = false;
  EXPECT_TRUE(becomes([&] { return transport.is_ready(); }, false));
  ASSERT_TRUE(broker("start"));
  for (const MessageId& id : publish_until_confirmed(transport, exchange, 10)) {
    confirmed.push_back(id);
  }
  // Generous: under a sanitizer, beside other suites, a broker restart and the reconnects that
  // follow took longer than the default wait.
  EXPECT_TRUE(received.wait_for(confirmed.size(), std::chrono::seconds(90)))
      << received.count() << " of " << confirmed.size() << " arrived";
  expect_every_confirmed_id_received(confirmed, received);
}

}  // namespace
}  // namespace whizbang::test
