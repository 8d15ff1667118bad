// RabbitMqTransport across a network partition: the broker on one simulated host (a network
// namespace), the service on another, joined by one veth link that the test takes down (packets
// vanish: no FIN, no RST) and brings up again. The transport must notice within a few
// heartbeats (is_ready() false), reconnect once the link is back, and lose nothing the broker
// confirmed. Needs root (network namespaces), as CI has; skipped otherwise.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

using namespace std::chrono_literals;

// Two namespaces (service side A, broker side B) on a private /24, named after this process.
struct TwoHosts {
  std::string a = "whpa" + std::to_string(getpid() % 100000);
  std::string b = "whpb" + std::to_string(getpid() % 100000);
  std::string net = "10.251." + std::to_string(getpid() % 200 + 20);
  std::string broker_dir = "/tmp/whizbang-rmq-partition-" + std::to_string(getpid());
  int port = WHIZBANG_RMQ_RESTART_PORT + 5;
  bool up = false;

  static bool run(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
  }
  bool start() {
    up = run("ip netns add " + a) && run("ip netns add " + b) &&
         run("ip link add " + a + "-v type veth peer name " + b + "-v") &&
         run("ip link set " + a + "-v netns " + a) && run("ip link set " + b + "-v netns " + b) &&
         run("ip -n " + a + " addr add " + net + ".1/24 dev " + a + "-v") &&
         run("ip -n " + b + " addr add " + net + ".2/24 dev " + b + "-v") &&
         run("ip -n " + a + " link set lo up") && run("ip -n " + b + " link set lo up") &&
         run("ip -n " + a + " link set " + a + "-v up") &&
         run("ip -n " + b + " link set " + b + "-v up");
    return up && run("ip netns exec " + b + " " + WHIZBANG_RMQ_SERVER_SCRIPT + " up " + broker_dir +
                     " " + std::to_string(port) + " " + net + ".2");
  }
  bool link(bool on) { return run("ip -n " + a + " link set " + a + "-v " + (on ? "up" : "down")); }
  ~TwoHosts() {
    run("ip netns exec " + b + " " + WHIZBANG_RMQ_SERVER_SCRIPT + " down " + broker_dir + " " +
        std::to_string(port));
    run("ip netns del " + a);
    run("ip netns del " + b);
  }
};

// The service side, in namespace A: publishes a message every 50 ms to its own subscription
// and reports on `report` when the transport turns ready ('r') or not ready ('n'). On SIGTERM
// it waits for every confirmed message to come back and exits 0, or 1 if any is missing.
[[noreturn]] void service_side(const TwoHosts& hosts, int report) {
  const int ns = open(("/var/run/netns/" + hosts.a).c_str(), O_RDONLY);
  if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) _exit(3);
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);  // before any thread: read with sigtimedwait
  RabbitMqOptions options = test_rabbitmq_options();
  options.host = hosts.net + ".2";
  options.port = hosts.port;
  options.heartbeat = 2s;
  options.confirm_timeout = 5s;
  options.connect_timeout = 1s;
  options.rpc_timeout = 2s;
  RabbitMqTransport transport(options);
  std::mutex mutex;
  std::set<MessageId> delivered;
  auto subscription = transport.subscribe(
      "partitioned", {{"partition.events", ""}},
      [&](const TransportDestination&, std::span<const TransportMessage> batch) {
        std::lock_guard lock(mutex);
        for (const TransportMessage& message : batch) delivered.insert(message.message_id);
        return absl::OkStatus();
      });
  if (!subscription.ok()) _exit(4);
  std::vector<MessageId> confirmed;
  bool was_ready = false;
  const timespec tick{0, 50'000'000};
  for (;;) {
    const bool ready = transport.is_ready();
    if (ready != was_ready) {
      const char state = ready ? 'r' : 'n';
      if (write(report, &state, 1) != 1) _exit(5);
      was_ready = ready;
    }
    if (ready) {
      const TransportMessage message = test_message("partition::events::Beat", true);
      if (transport.publish({"partition.events", "partition.events.beat", {}}, {&message, 1})
              .ok()) {
        confirmed.push_back(message.message_id);
      }
    }
    if (sigtimedwait(&term, nullptr, &tick) == SIGTERM) break;
  }
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    std::size_t missing = 0;
    {
      std::lock_guard lock(mutex);
      for (const MessageId& id : confirmed) missing += delivered.contains(id) ? 0 : 1;
    }
    if (missing == 0) _exit(confirmed.empty() ? 6 : 0);
    if (std::chrono::steady_clock::now() > deadline) _exit(1);
    std::this_thread::sleep_for(20ms);
  }
}

// The next state the service side reported within `timeout`, or 0.
char next_report(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return 0;
  char state = 0;
  return read(fd, &state, 1) == 1 ? state : 0;
}

TEST(RabbitMqPartitionTests, ServiceCutOffFromItsBroker_NotReady_ThenRecovers_NothingLost) {
  if (geteuid() != 0) GTEST_SKIP() << "network namespaces need root";
  TwoHosts hosts;
  ASSERT_TRUE(hosts.start()) << "could not set up the namespaces and the broker";
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(report[0]);
    service_side(hosts, report[1]);
  }
  close(report[1]);
  ASSERT_EQ(next_report(report[0], 30s), 'r') << "never ready across the link";
  std::this_thread::sleep_for(500ms);  // some traffic before the cut: the scenario, not a sync
  const auto cut = std::chrono::steady_clock::now();
  ASSERT_TRUE(hosts.link(false));
  EXPECT_EQ(next_report(report[0], 30s), 'n') << "the partition went unnoticed";
  const double noticed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  std::printf("[ partition ] not ready %.1f s after the link went down (heartbeat 2 s)\n", noticed);
  ASSERT_TRUE(hosts.link(true));
  EXPECT_EQ(next_report(report[0], 60s), 'r') << "did not reconnect after the link came back";
  std::this_thread::sleep_for(500ms);  // traffic after the heal
  kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a confirmed message never arrived; other: setup";
  close(report[0]);
}

}  // namespace
}  // namespace whizbang::test
