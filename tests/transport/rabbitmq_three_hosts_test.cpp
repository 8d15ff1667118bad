// RabbitMqTransport across simulated hosts: the broker in one network namespace, two services
// in two others, each joined to the broker's namespace by a veth link of its own. The "ping"
// service publishes to the "pong" service, which sends every message back. The test takes the
// ping side's link down (packets vanish: no FIN, no RST) and brings it up again: the ping side
// must notice within a few heartbeats (is_ready() false), reconnect once the link is back, and
// every ping the broker confirmed must come back through the other host. Needs root (network
// namespaces), as CI has; skipped otherwise.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

using namespace std::chrono_literals;

const std::string kPings = "pingpong.pings";
const std::string kPongs = "pingpong.pongs";

bool run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// Namespaces named after this process: the broker's host and one per service, each service
// host on a /24 of its own with the broker's host (.2 on the broker's side, .1 on the service's).
// The broker listens on all of its host's addresses, inside its namespace.
struct ThreeHosts {
  std::string id = std::to_string(getpid() % 100000);
  std::string broker_host = "whb" + id;
  std::string ping_host = "whp" + id;
  std::string pong_host = "whq" + id;
  std::string ping_net = "10.251." + std::to_string(getpid() % 200 + 20);
  std::string pong_net = "10.252." + std::to_string(getpid() % 200 + 20);
  std::string broker_dir = "/tmp/whizbang-rmq-hosts-" + std::to_string(getpid());
  // Inside the broker's own namespace: no other broker shares its ports.
  int port = WHIZBANG_RMQ_HOSTS_PORT;

  bool join(const std::string& host, const std::string& net) {
    const std::string near = host + "-v";
    const std::string far = host + "-b";
    return run("ip netns add " + host) &&
           run("ip link add " + near + " type veth peer name " + far) &&
           run("ip link set " + near + " netns " + host) &&
           run("ip link set " + far + " netns " + broker_host) &&
           run("ip -n " + host + " addr add " + net + ".1/24 dev " + near) &&
           run("ip -n " + broker_host + " addr add " + net + ".2/24 dev " + far) &&
           run("ip -n " + host + " link set lo up") &&
           run("ip -n " + host + " link set " + near + " up") &&
           run("ip -n " + broker_host + " link set " + far + " up");
  }
  bool start() {
    return run("ip netns add " + broker_host) && run("ip -n " + broker_host + " link set lo up") &&
           join(ping_host, ping_net) && join(pong_host, pong_net) &&
           run("ip netns exec " + broker_host + " " + WHIZBANG_RMQ_SERVER_SCRIPT + " up " +
               broker_dir + " " + std::to_string(port) + " 0.0.0.0");
  }
  bool ping_link(bool on) {
    return run("ip -n " + ping_host + " link set " + ping_host + "-v " + (on ? "up" : "down"));
  }
  ~ThreeHosts() {
    run("ip netns exec " + broker_host + " " + WHIZBANG_RMQ_SERVER_SCRIPT + " down " + broker_dir +
        " " + std::to_string(port));
    for (const std::string& host : {ping_host, pong_host, broker_host}) run("ip netns del " + host);
  }
};

// Moves this (single-threaded, freshly forked) process into `host`'s network namespace, with
// SIGTERM blocked so that sigtimedwait() reads it; every thread it starts inherits both.
sigset_t enter(const std::string& host) {
  const int ns = open(("/var/run/netns/" + host).c_str(), O_RDONLY);
  if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) _exit(3);
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  return term;
}

RabbitMqOptions options_for(const std::string& broker_address, int port) {
  RabbitMqOptions options = test_rabbitmq_options();
  options.host = broker_address;
  options.port = port;
  options.heartbeat = 2s;
  options.confirm_timeout = 5s;
  options.connect_timeout = 1s;
  options.rpc_timeout = 2s;
  return options;
}

// The pong service: sends every ping back as a pong (same id), until SIGTERM. A pong the broker
// returns (the ping side's queue not declared yet) fails the handling: the ping comes again.
[[noreturn]] void pong_service(const ThreeHosts& hosts) {
  sigset_t term = enter(hosts.pong_host);
  RabbitMqTransport transport(options_for(hosts.pong_net + ".2", hosts.port));
  auto subscription = transport.subscribe(
      "pong", {{kPings, ""}},
      [&](const TransportDestination&, std::span<const TransportMessage> batch) {
        std::vector<TransportMessage> pongs(batch.begin(), batch.end());
        return transport.publish({kPongs, "pingpong.pong", {}}, pongs);
      });
  if (!subscription.ok()) _exit(4);
  int signal = 0;
  sigwait(&term, &signal);
  _exit(0);
}

// The ping service: publishes a ping every 50 ms while ready, reports on `report` when it turns
// ready ('r') or not ready ('n'). On SIGTERM it waits for a pong for every ping the broker
// confirmed and exits 0, or 1 if one never came.
[[noreturn]] void ping_service(const ThreeHosts& hosts, int report) {
  sigset_t term = enter(hosts.ping_host);
  RabbitMqTransport transport(options_for(hosts.ping_net + ".2", hosts.port));
  std::mutex mutex;
  std::set<MessageId> ponged;
  auto subscription = transport.subscribe(
      "ping", {{kPongs, ""}},
      [&](const TransportDestination&, std::span<const TransportMessage> batch) {
        std::lock_guard lock(mutex);
        for (const TransportMessage& message : batch) ponged.insert(message.message_id);
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
      // A command: until the pong service's queue exists (its subscription may still be
      // connecting) the broker returns it and the publish fails, where an event would be
      // dropped as having no subscriber.
      const TransportMessage ping = test_message("pingpong::commands::Ping", false);
      if (transport.publish({kPings, "pingpong.ping", {}}, {&ping, 1}).ok()) {
        confirmed.push_back(ping.message_id);
      }
    }
    if (sigtimedwait(&term, nullptr, &tick) == SIGTERM) break;
  }
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  for (;;) {
    std::size_t missing = 0;
    {
      std::lock_guard lock(mutex);
      for (const MessageId& id : confirmed) missing += ponged.contains(id) ? 0 : 1;
    }
    if (missing == 0) _exit(confirmed.empty() ? 6 : 0);
    if (std::chrono::steady_clock::now() > deadline) _exit(1);
    std::this_thread::sleep_for(20ms);
  }
}

// The next state the ping side reported within `timeout`, or 0.
char next_report(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return 0;
  char state = 0;
  return read(fd, &state, 1) == 1 ? state : 0;
}

// SIGTERM, then the exit code (or 128 + signal).
int stop(pid_t pid) {
  kill(pid, SIGTERM);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(RabbitMqThreeHostsTests, ServicesOnTwoHosts_OnePartitioned_NotReadyThenRecovers_NothingLost) {
  if (geteuid() != 0) GTEST_SKIP() << "network namespaces need root";
  ThreeHosts hosts;
  ASSERT_TRUE(hosts.start()) << "could not set up the namespaces and the broker";
  const pid_t pong = fork();
  ASSERT_GE(pong, 0);
  if (pong == 0) pong_service(hosts);
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t ping = fork();
  ASSERT_GE(ping, 0);
  if (ping == 0) {
    close(report[0]);
    ping_service(hosts, report[1]);
  }
  close(report[1]);
  ASSERT_EQ(next_report(report[0], 30s), 'r') << "the ping side never got ready";
  std::this_thread::sleep_for(500ms);  // traffic before the cut: the scenario, not a sync
  const auto cut = std::chrono::steady_clock::now();
  ASSERT_TRUE(hosts.ping_link(false));
  EXPECT_EQ(next_report(report[0], 30s), 'n') << "the partition went unnoticed";
  const double noticed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  std::printf("[ partition ] not ready %.1f s after the link went down (heartbeat 2 s)\n", noticed);
  ASSERT_TRUE(hosts.ping_link(true));
  EXPECT_EQ(next_report(report[0], 60s), 'r') << "did not reconnect after the link came back";
  std::this_thread::sleep_for(500ms);  // traffic after the heal
  EXPECT_EQ(stop(ping), 0) << "1: a confirmed ping never came back; other: setup";
  EXPECT_EQ(stop(pong), 0);
  close(report[0]);
}

}  // namespace
}  // namespace whizbang::test
