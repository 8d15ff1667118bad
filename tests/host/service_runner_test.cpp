// ServiceRunner (docs/guide/14-running-services.md): its configuration, its HTTP endpoints over
// the run's broker, and a service process that stops cleanly on SIGTERM.
#include <gtest/gtest.h>

#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <whizbang/host/service_runner.hpp>
#include <whizbang/observability/prometheus.hpp>
#include "absl/strings/escaping.h"
#include "support/runner_config_args.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "raw_http_client.hpp"
#include "runner_receptors.hpp"
#include "whizbang_registry.hpp"

namespace runner_test {
namespace {

using namespace std::chrono_literals;

const whizbang::Registry& registry() {
  return whizbang::generated::runner_test_receptors::registry();
}

using whizbang_test::ScopedEnv;

absl::StatusOr<whizbang::ServiceRunnerConfig> parse(std::vector<const char*> args) {
  return whizbang_test::parse_runner_args(std::move(args));
}

TEST(ServiceRunnerConfigTests, Flags_InBothSpellings) {
  auto config = parse({"--service", "orders", "--store=sqlite:/tmp/orders.db", "--transport",
                       "amqp://broker", "--http-port=9464", "--http-address", "0.0.0.0"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->service_name, "orders");
  EXPECT_EQ(config->store, "sqlite:/tmp/orders.db");
  EXPECT_EQ(config->transport, "amqp://broker");
  EXPECT_EQ(config->http_port, 9464);
  EXPECT_EQ(config->http_address, "0.0.0.0");
}

TEST(ServiceRunnerConfigTests, Environment_UnlessAFlagSaysOtherwise) {
  ScopedEnv service("WHIZBANG_SERVICE", "billing");
  ScopedEnv store("WHIZBANG_STORE", "postgresql:");
  ScopedEnv port("WHIZBANG_HTTP_PORT", "9000");
  auto config = parse({"--http-port", "9001"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->service_name, "billing");
  EXPECT_EQ(config->store, "postgresql:");
  EXPECT_EQ(config->transport, "none");
  EXPECT_EQ(config->http_port, 9001);
}

TEST(ServiceRunnerConfigTests, Mistakes_AreClearErrors) {
  EXPECT_NE(parse({}).status().message().find("no service name"), std::string_view::npos);
  EXPECT_NE(parse({"--service", "x", "--http-port", "http"}).status().message().find("not a port"),
            std::string_view::npos);
  EXPECT_NE(parse({"--service", "x", "--stroe", "y"}).status().message().find("unknown option"),
            std::string_view::npos);
  EXPECT_NE(parse({"--service"}).status().message().find("needs a value"), std::string_view::npos);
}

TEST(ServiceRunnerConfigTests, Retry_FlagRepeats_EnvironmentSplitsOnSemicolons_MistakesRefused) {
  auto flags =
      parse({"--service", "x", "--retry", "default=max=5", "--retry=reason:Unknown=dead-letter"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->retry_policies,
            (std::vector<std::string>{"default=max=5", "reason:Unknown=dead-letter"}));
  {
    ScopedEnv retry("WHIZBANG_RETRY", "default=max=5 ; code:UNAVAILABLE=immediate=3");
    auto environment = parse({"--service", "x"});
    ASSERT_TRUE(environment.ok()) << environment.status();
    EXPECT_EQ(environment->retry_policies,
              (std::vector<std::string>{"default=max=5", "code:UNAVAILABLE=immediate=3"}));
    auto flag_wins = parse({"--service", "x", "--retry", "default=max=2"});
    ASSERT_TRUE(flag_wins.ok());
    EXPECT_EQ(flag_wins->retry_policies, (std::vector<std::string>{"default=max=2"}));
  }
  const absl::Status wrong = parse({"--service", "x", "--retry", "default=tries=2"}).status();
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("--retry 'default=tries=2': unknown key 'tries'"),
            std::string_view::npos)
      << wrong;
}

TEST(ServiceRunnerConfigTests, CommandInboxes_EveryNamespaceByDefault_AListOrNone_SharedKept) {
  auto defaults = parse({"--service", "x"});
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  const whizbang::CommandInboxes all = whizbang::command_inboxes_from_config(*defaults);
  EXPECT_EQ(all.namespaces, (std::vector<std::string>{"*"}));
  EXPECT_FALSE(all.keep_shared_inbox);
  auto listed = parse({"--service", "x", "--command-inboxes", "shop.orders, shop.billing",
                       "--keep-shared-inbox=true"});
  ASSERT_TRUE(listed.ok()) << listed.status();
  const whizbang::CommandInboxes some = whizbang::command_inboxes_from_config(*listed);
  EXPECT_EQ(some.namespaces, (std::vector<std::string>{"shop.orders", "shop.billing"}));
  EXPECT_TRUE(some.keep_shared_inbox);
  EXPECT_TRUE(some.has_own_inbox("shop.orders"));
  EXPECT_FALSE(some.has_own_inbox("shop.shipping"));
  {
    ScopedEnv none("WHIZBANG_COMMAND_INBOXES", "none");
    auto shared = parse({"--service", "x"});
    ASSERT_TRUE(shared.ok()) << shared.status();
    EXPECT_EQ(whizbang::command_inboxes_from_config(*shared).namespaces,
              whizbang::CommandInboxes::shared_only().namespaces);
  }
  EXPECT_NE(parse({"--service", "x", "--keep-shared-inbox", "yes"})
                .status()
                .message()
                .find("--keep-shared-inbox: 'yes' is not true or false"),
            std::string_view::npos);
}

TEST(ServiceRunnerConfigTests, Signing_ModeFromFlagKeysFromTheEnvironmentOnly) {
  const std::string secret(32, 's');
  ScopedEnv keys("WHIZBANG_SIGNING_KEYS", ("k1:" + absl::Base64Escape(secret)).c_str());
  auto config = parse({"--service", "orders", "--signing", "require", "--trusted-scope-services",
                       "orders, billing"});
  ASSERT_TRUE(config.ok()) << config.status();
  absl::StatusOr<whizbang::EnvelopeSigning> signing = whizbang::signing_from_config(*config);
  ASSERT_TRUE(signing.ok()) << signing.status();
  EXPECT_EQ(signing->mode, whizbang::EnvelopeSigningMode::Require);
  ASSERT_NE(signing->keys.signing_key(), nullptr);
  EXPECT_EQ(signing->keys.signing_key()->secret, secret);
  EXPECT_EQ(whizbang::scope_trusted_services_from_config(*config),
            (std::vector<std::string>{"orders", "billing"}));
  config->scope_trusted_services = "*";
  EXPECT_FALSE(whizbang::scope_trusted_services_from_config(*config).has_value());
}

TEST(ServiceRunnerConfigTests, SigningMistakes_AreClearErrors) {
  EXPECT_NE(parse({"--service", "x", "--signing", "yes"}).status().message().find("is not off"),
            std::string_view::npos);
  // Require without keys cannot start: it would refuse everything it receives.
  EXPECT_NE(parse({"--service", "x", "--signing", "require"}).status().message().find("empty"),
            std::string_view::npos);
  ScopedEnv keys("WHIZBANG_SIGNING_KEYS", "k1:c2hvcnQ=");
  const absl::Status short_key = parse({"--service", "x", "--signing", "sign"}).status();
  EXPECT_NE(short_key.message().find("WHIZBANG_SIGNING_KEYS"), std::string_view::npos);
  EXPECT_EQ(short_key.message().find("c2hvcnQ="), std::string_view::npos);
}

TEST(PrometheusTests, CountersAndGauges_InTheTextFormat) {
  whizbang::InMemoryMetrics metrics;
  const whizbang::MetricTag tag{"message_type", "shop::\"Odd\"\\Name"};
  metrics.add("Whizbang.WorkCoordinator", "whizbang.work_coordinator.failed", 2, {&tag, 1});
  const std::string text = whizbang::prometheus_text(metrics, {{"whizbang_ready", "ready", 1}});
  EXPECT_NE(text.find("# TYPE whizbang_ready gauge\nwhizbang_ready 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE whizbang_work_coordinator_failed_total counter\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("whizbang_work_coordinator_failed_total{message_type=\"shop::\\\"Odd\\\"\\\\"
                      "Name\"} 2\n"),
            std::string::npos)
      << text;
}

class ServiceRunnerTests : public ::testing::Test {
 protected:
  ServiceRunnerTests() { services_.add<PingCounter>(counter_); }

  whizbang::ServiceRunnerConfig config(std::string transport) {
    whizbang::ServiceRunnerConfig config;
    static int counter = 0;
    config.service_name = "runner-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    config.transport = std::move(transport);
    config.http_port = 0;
    return config;
  }

  PingCounter counter_;
  whizbang::ServiceRegistry services_;
};

TEST_F(ServiceRunnerTests, OverTheBroker_LiveReadyAndMetrics_ThenNotReadyOnceStopped) {
  auto runner = whizbang::ServiceRunner::start(registry(), services_, config("amqp:"));
  ASSERT_TRUE(runner.ok()) << runner.status();
  ASSERT_GT((*runner)->http_port(), 0);
  httplib::Client client("127.0.0.1", (*runner)->http_port());
  auto live = client.Get("/livez");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;

  Ping ping;
  ping.text = "hello";
  ASSERT_TRUE((*runner)->host().dispatcher().send(ping).ok());
  EXPECT_EQ(counter_.handled.load(), 1);
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("whizbang_ready 1\n"), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("whizbang_transport_ready 1\n"), std::string::npos) << metrics->body;

  (*runner)->stop();
  EXPECT_FALSE((*runner)->readiness().ok());
}

TEST_F(ServiceRunnerTests, BrokerUnreachable_StartsButIsNotReady) {
  whizbang::ServiceRunnerConfig unreachable = config("amqp://guest:guest@127.0.0.1:1");
  auto runner = whizbang::ServiceRunner::start(registry(), services_, unreachable);
  ASSERT_TRUE(runner.ok()) << runner.status();
  httplib::Client client("127.0.0.1", (*runner)->http_port());
  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  EXPECT_NE(ready->body.find("transport is not connected"), std::string::npos) << ready->body;
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("whizbang_transport_ready 0\n"), std::string::npos);
}

TEST_F(ServiceRunnerTests, BadStoreOrTransport_StartFailsWithTheReason) {
  whizbang::ServiceRunnerConfig bad_transport = config("kafka://nope");
  auto runner = whizbang::ServiceRunner::start(registry(), services_, bad_transport);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("--transport"), std::string_view::npos);
  whizbang::ServiceRunnerConfig bad_store = config("none");
  bad_store.store = "/nonexistent-dir/x/y.db";
  runner = whizbang::ServiceRunner::start(registry(), services_, bad_store);
  EXPECT_FALSE(runner.ok());
}

// A free TCP port on the loopback (bound, read, released).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// The test service as a process of its own, its HTTP endpoint on `port`.
pid_t start_service_process(const std::string& service, const char* transport, int port) {
  const std::string port_text = std::to_string(port);
  const pid_t child = fork();
  if (child == 0) {
    execl(WHIZBANG_RUNNER_TEST_SERVICE, WHIZBANG_RUNNER_TEST_SERVICE, "--service", service.c_str(),
          "--transport", transport, "--http-port", port_text.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return child;
}

// Ready is a state the process reaches: asked until it says so (30 s at most).
bool wait_until_ready(int port) {
  httplib::Client client("127.0.0.1", port);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto response = client.Get("/readyz");
    if (response && response->status == 200) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(ServiceProcessTests, SigtermWhileRunning_StopsCleanlyWithExitZero) {
  const int port = free_port();
  const pid_t child =
      start_service_process("runner-process-" + std::to_string(getpid()), "amqp:", port);
  ASSERT_GE(child, 0);
  EXPECT_TRUE(wait_until_ready(port));
  kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// SIGTERM closes the HTTP connections at once: a client sending a header byte every 50 ms (which
// kept cpp-httplib's stop() waiting for as long as it kept sending) sees the connection closed,
// before its head deadline would have answered it 408.
TEST(ServiceProcessTests, SigtermWithSlowClientsConnected_StopsWithoutWaitingForThem) {
  const int port = free_port();
  const pid_t child =
      start_service_process("runner-slow-" + std::to_string(getpid()), "none", port);
  ASSERT_GE(child, 0);
  ASSERT_TRUE(wait_until_ready(port));
  http_test::RawHttpClient partial_head(port);
  ASSERT_TRUE(partial_head.send("GET /livez HTTP/1.1\r\nHo"));
  http_test::RawHttpClient dribbling(port);
  ASSERT_TRUE(dribbling.send("GET /livez HTTP/1.1\r\nX-Slow: "));
  bool dribbler_saw_close = false;
  std::thread dribbler(
      [&] { dribbler_saw_close = dribbling.dribble_until_closed(std::string(400, 's'), 50ms); });
  kill(child, SIGTERM);
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  dribbler.join();
  EXPECT_TRUE(dribbler_saw_close);
  EXPECT_EQ(dribbling.received(), "");  // closed by the signal, not answered 408
  EXPECT_TRUE(partial_head.closed_by_server());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(ServiceProcessTests, WrongFlag_ExitTwo) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl(WHIZBANG_RUNNER_TEST_SERVICE, WHIZBANG_RUNNER_TEST_SERVICE, "--servce", "x",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
}  // namespace runner_test
