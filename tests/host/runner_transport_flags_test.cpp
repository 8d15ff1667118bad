// The runner's transport flags (docs/guide/14-running-services.md, "Configuration"): the
// RabbitMQ options chapter 13 lists and what comes back of a service's own events, each a flag
// with a WHIZBANG_* fallback; a mistake is one clear line and exit code 2.
#include <gtest/gtest.h>
#include <whizbang/host/service_runner.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "runner_receptors.hpp"
#include "support/runner_config_args.hpp"
#include "support/temp_dir.hpp"
#include "whizbang_registry.hpp"

namespace runner_test::transport_flags {
namespace {

using namespace std::chrono_literals;
using whizbang_test::ScopedEnv;

absl::StatusOr<whizbang::ServiceRunnerConfig> parse(std::vector<const char*> args) {
  return whizbang_test::parse_runner_args(std::move(args));
}

std::string error_of(std::vector<const char*> args) {
  absl::StatusOr<whizbang::ServiceRunnerConfig> config = parse(std::move(args));
  EXPECT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(config.status().message());
}

TEST(RunnerTransportFlagsTests, Flags_SetTheRabbitMqOptions_TheBrokerComesFromTheUrl) {
  auto config = parse({"--service",
                       "orders",
                       "--transport",
                       "amqp://app:secret@broker:5673/shop",
                       "--amqp-heartbeat",
                       "30s",
                       "--amqp-prefetch=20",
                       "--amqp-unrouted-grace",
                       "2s",
                       "--amqp-connect-timeout",
                       "1500ms",
                       "--amqp-rpc-timeout",
                       "20s",
                       "--amqp-confirm-timeout",
                       "1m",
                       "--amqp-reconnect-initial-delay",
                       "250ms",
                       "--amqp-reconnect-max-delay",
                       "10s",
                       "--amqp-max-message-bytes",
                       "4MiB",
                       "--amqp-consume-poll-interval",
                       "100ms",
                       "--amqp-dead-letter-exchanges",
                       "false"});
  ASSERT_TRUE(config.ok()) << config.status();
  absl::StatusOr<whizbang::RabbitMqOptions> amqp = whizbang::rabbitmq_options_from_config(*config);
  ASSERT_TRUE(amqp.ok()) << amqp.status();
  EXPECT_EQ(amqp->heartbeat, 30s);
  EXPECT_EQ(amqp->prefetch, 20);
  EXPECT_EQ(amqp->unrouted_grace, 2s);
  EXPECT_EQ(amqp->connect_timeout, 1500ms);
  EXPECT_EQ(amqp->rpc_timeout, 20s);
  EXPECT_EQ(amqp->confirm_timeout, 60s);
  EXPECT_EQ(amqp->reconnect_initial_delay, 250ms);
  EXPECT_EQ(amqp->reconnect_max_delay, 10s);
  EXPECT_EQ(amqp->max_message_bytes, std::size_t{4} << 20);
  EXPECT_EQ(amqp->consume_poll_interval, 100ms);
  EXPECT_FALSE(amqp->dead_letter_exchanges);
  // Where the broker is comes from the URL alone; the connection is named after the service.
  EXPECT_EQ(amqp->host, "broker");
  EXPECT_EQ(amqp->port, 5673);
  EXPECT_EQ(amqp->vhost, "shop");
  EXPECT_EQ(amqp->user, "app");
  EXPECT_EQ(amqp->password, "secret");
  EXPECT_FALSE(amqp->tls.enabled);
  EXPECT_EQ(amqp->connection_name, "orders");
}

TEST(RunnerTransportFlagsTests, NoneGiven_TheRabbitMqDefaults) {
  auto config = parse({"--service", "orders", "--transport", "amqps://broker"});
  ASSERT_TRUE(config.ok()) << config.status();
  absl::StatusOr<whizbang::RabbitMqOptions> amqp = whizbang::rabbitmq_options_from_config(*config);
  ASSERT_TRUE(amqp.ok()) << amqp.status();
  const whizbang::RabbitMqOptions defaults;
  EXPECT_EQ(amqp->heartbeat, defaults.heartbeat);
  EXPECT_EQ(amqp->prefetch, defaults.prefetch);
  EXPECT_EQ(amqp->unrouted_grace, defaults.unrouted_grace);
  EXPECT_EQ(amqp->confirm_timeout, defaults.confirm_timeout);
  EXPECT_EQ(amqp->max_message_bytes, defaults.max_message_bytes);
  EXPECT_TRUE(amqp->dead_letter_exchanges);
  EXPECT_TRUE(amqp->tls.enabled);
  EXPECT_EQ(amqp->port, 5671);
  const whizbang::OwnEvents own = whizbang::own_events_from_config(*config);
  EXPECT_FALSE(own.drop_on_receipt);  // off unless asked for
  EXPECT_TRUE(own.local_only.empty());
}

TEST(RunnerTransportFlagsTests, Environment_UnlessAFlagSaysOtherwise) {
  ScopedEnv heartbeat("WHIZBANG_AMQP_HEARTBEAT", "0");
  ScopedEnv prefetch("WHIZBANG_AMQP_PREFETCH", "5");
  ScopedEnv grace("WHIZBANG_AMQP_UNROUTED_GRACE", "0");
  ScopedEnv drop("WHIZBANG_DROP_OWN_EVENTS", "true");
  ScopedEnv local("WHIZBANG_LOCAL_ONLY_EVENTS", "shop::OrderPlaced, audit::*");
  auto config = parse({"--service", "orders", "--amqp-prefetch", "7"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->amqp.heartbeat, 0s);
  EXPECT_EQ(config->amqp.prefetch, 7);
  EXPECT_EQ(config->amqp.unrouted_grace, 0ms);
  const whizbang::OwnEvents own = whizbang::own_events_from_config(*config);
  EXPECT_TRUE(own.drop_on_receipt);
  EXPECT_EQ(own.local_only, (std::vector<std::string>{"shop::OrderPlaced", "audit::*"}));
}

TEST(RunnerTransportFlagsTests, Mistakes_NameTheFlagItsVariableAndWhatItTakes) {
  struct Case {
    std::vector<const char*> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--amqp-heartbeat", "1500ms"},
       "--amqp-heartbeat (WHIZBANG_AMQP_HEARTBEAT): '1500ms' is not whole seconds"},
      {{"--amqp-heartbeat", "70000s"}, "'70000s' is not whole seconds up to 65535s"},
      {{"--amqp-heartbeat", "ten"}, "'ten' is not whole seconds"},
      {{"--amqp-prefetch", "0"},
       "--amqp-prefetch (WHIZBANG_AMQP_PREFETCH): '0' is not a count from 1 to 65535"},
      {{"--amqp-prefetch", "70000"}, "'70000' is not a count from 1 to 65535"},
      {{"--amqp-unrouted-grace", "-1s"},
       "--amqp-unrouted-grace (WHIZBANG_AMQP_UNROUTED_GRACE): '-1s' is not a duration up to 1h"},
      {{"--amqp-connect-timeout", "0"}, "'0' is not a duration from 1ms to 1h"},
      {{"--amqp-rpc-timeout", "2h"}, "--amqp-rpc-timeout (WHIZBANG_AMQP_RPC_TIMEOUT)"},
      {{"--amqp-confirm-timeout", "30"}, "'30' is not a duration from 1ms to 1h"},
      {{"--amqp-consume-poll-interval", "2m"}, "'2m' is not a duration from 1ms to 60s"},
      {{"--amqp-max-message-bytes", "1GiB"}, "is not a size from 1 byte to 512MiB"},
      {{"--amqp-max-message-bytes", "0"}, "is not a size from 1 byte to 512MiB"},
      {{"--amqp-dead-letter-exchanges", "no"}, "'no' is not true or false"},
      {{"--amqp-reconnect-initial-delay", "5s", "--amqp-reconnect-max-delay", "1s"},
       "--amqp-reconnect-max-delay: shorter than --amqp-reconnect-initial-delay (1000ms < 5000ms)"},
      {{"--amqp-ca-cert", "/nonexistent/ca.pem"},
       "--amqp-ca-cert (WHIZBANG_AMQP_CA_CERT): '/nonexistent/ca.pem' is not a readable file"},
      {{"--drop-own-events", "yes"},
       "--drop-own-events (WHIZBANG_DROP_OWN_EVENTS): 'yes' is not true or false"},
      {{"--local-only-events", "shop::*Placed"}, "'*' only at a name's end"},
      {{"--amqp-heartbeet", "10s"}, "unknown option '--amqp-heartbeet' (known: --service"},
  };
  for (const Case& mistake : cases) {
    std::vector<const char*> args = {"--service", "x"};
    args.insert(args.end(), mistake.args.begin(), mistake.args.end());
    const std::string error = error_of(args);
    EXPECT_NE(error.find(mistake.message), std::string::npos) << mistake.args[0] << ": " << error;
  }
  // The unknown-option message lists the transport flags too.
  EXPECT_NE(error_of({"--service", "x", "--amqp-heartbeet", "1s"}).find("--amqp-unrouted-grace"),
            std::string::npos);
  // The variable alone is checked as strictly.
  ScopedEnv prefetch("WHIZBANG_AMQP_PREFETCH", "many");
  EXPECT_NE(error_of({"--service", "x"}).find("'many' is not a count"), std::string::npos);
}

TEST(RunnerTransportFlagsTests, TlsFiles_NeedBothClientParts_AndAnAmqpsTransport) {
  whizbang_test::TempDir dir;
  const std::string pem = (dir.path() / "ca.pem").string();
  std::ofstream(pem) << "-----BEGIN CERTIFICATE-----\n";
  auto config =
      parse({"--service", "x", "--transport", "amqps://broker", "--amqp-ca-cert", pem.c_str(),
             "--amqp-client-cert", pem.c_str(), "--amqp-client-key", pem.c_str()});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->amqp.tls.ca_cert_file, pem);
  EXPECT_EQ(config->amqp.tls.client_cert_file, pem);
  EXPECT_EQ(config->amqp.tls.client_key_file, pem);
  EXPECT_NE(error_of({"--service", "x", "--transport", "amqps://broker", "--amqp-client-cert",
                      pem.c_str()})
                .find("give both"),
            std::string::npos);
  EXPECT_NE(
      error_of({"--service", "x", "--transport", "amqp://broker", "--amqp-ca-cert", pem.c_str()})
          .find("TLS files need an amqps:// transport"),
      std::string::npos);
}

TEST(RunnerTransportFlagsTests, ServiceMain_AMistakeExitsWithCodeTwo) {
  PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<PingCounter>(counter);
  std::vector<const char*> args = {"service", "--service", "x", "--amqp-prefetch", "0"};
  EXPECT_EQ(
      whizbang::run_service_main(static_cast<int>(args.size()), const_cast<char**>(args.data()),
                                 whizbang::generated::runner_test_receptors::registry(), services),
      2);
}

}  // namespace
}  // namespace runner_test::transport_flags
