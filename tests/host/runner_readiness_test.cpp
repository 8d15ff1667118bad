// /readyz of a service whose subscription is stuck (docs/guide/14-running-services.md): every
// delivered batch fails to be stored (here PostgreSQL answers each insert into the inbox with an
// error of the "server going away" class, which is never a bad message's fault), so the
// subscription takes nothing; the probe says so once that has lasted
// ServiceRunnerConfig::failure_grace, and recovers with the store. Before, /readyz
// stayed 200 while nothing was stored.
#include <gtest/gtest.h>
#include <httplib.h>
#include <whizbang/host/service_runner.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <unistd.h>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "runner_receptors.hpp"
#include "support/postgres_schema.hpp"
#include "support/rabbitmq_broker.hpp"
#include "whizbang_registry.hpp"

namespace runner_test {
namespace {

using namespace std::chrono_literals;

// Waits until `condition` holds (checked every few milliseconds); false after `timeout`.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// A Ping as another service publishes it to this one's queue.
whizbang::TransportMessage ping_delivery() {
  Ping ping;
  ping.text = "hello";
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(ping),
                                 {"pinger", whizbang::MessageId::mint().uuid(), "test-host", 1});
  whizbang::TransportMessage message;
  message.message_id = envelope.message_id;
  message.message_type = std::string(whizbang::MessageTraits<Ping>::info().wire_name);
  message.envelope_json = whizbang::serialize_envelope(envelope);
  return message;
}

TEST(RunnerReadinessTests, SubscriptionThatStoresNothing_NotReadyUntilTheStoreTakesItAgain) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<PingCounter>(counter);
  whizbang::ServiceRunnerConfig config;
  config.service_name = whizbang::test::unique_name("stuck");
  config.store = conninfo;
  config.transport = "amqp:";
  config.http_port = 0;
  config.failure_grace = 200ms;
  auto runner = whizbang::ServiceRunner::start(
      whizbang::generated::runner_test_receptors::registry(), services, config);
  ASSERT_TRUE(runner.ok()) << runner.status();
  ASSERT_TRUE(eventually([&] { return (*runner)->readiness().ok(); })) << (*runner)->readiness();

  ASSERT_TRUE(whizbang_test::postgres_admin(
      conninfo,
      "CREATE FUNCTION going_away() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "RAISE EXCEPTION 'the server is going away' USING ERRCODE = 'admin_shutdown'; END $$; "
      "CREATE TRIGGER going_away BEFORE INSERT ON wh_inbox FOR EACH ROW "
      "EXECUTE FUNCTION going_away()"));
  whizbang::RabbitMqTransport sender(whizbang::test::test_rabbitmq_options());
  const std::vector<whizbang::TransportBinding>& bindings = (*runner)->host().bindings();
  ASSERT_FALSE(bindings.empty());
  const whizbang::TransportMessage ping = ping_delivery();
  ASSERT_TRUE(
      sender.publish({bindings.front().address, bindings.front().routing_key, {}}, {&ping, 1}).ok())
      << bindings.front().address << " " << bindings.front().routing_key;

  ASSERT_TRUE(eventually([&] { return !(*runner)->readiness().ok(); }));
  EXPECT_NE((*runner)->readiness().message().find("the subscription is stuck"),
            std::string_view::npos)
      << (*runner)->readiness();
  EXPECT_NE((*runner)->readiness().message().find("going away"), std::string_view::npos);
  httplib::Client client("127.0.0.1", (*runner)->http_port());
  const auto answer = client.Get("/readyz");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 503);
  EXPECT_NE(answer->body.find("stuck"), std::string::npos) << answer->body;
  EXPECT_EQ(counter.handled.load(), 0);

  ASSERT_TRUE(whizbang_test::postgres_admin(conninfo, "DROP TRIGGER going_away ON wh_inbox"));
  ASSERT_TRUE(eventually([&] { return (*runner)->readiness().ok(); })) << (*runner)->readiness();
  EXPECT_TRUE(eventually([&] { return counter.handled.load() == 1; }));
}

// The store's server stops: every worker cycle fails, and /readyz says so once that has lasted
// failure_grace; the server comes back, and so does readiness. Before, /readyz stayed 200 while
// PostgreSQL was down. The test runs a server of its own (the shared one serves other tests).
TEST(RunnerReadinessTests, StoreServerDown_NotReadyUntilItIsBack) {
  const std::string dir = "/tmp/whizbang-pgready-" + std::to_string(::getpid());
  const std::string port = "55435";
  const auto server = [&](const std::string& command) {
    const std::string line = std::string(WHIZBANG_PG_SERVER_SCRIPT) + " " + command + " " + dir +
                             " " + port + " >/dev/null";
    return std::system(line.c_str());
  };
  ASSERT_EQ(server("up"), 0);
  PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<PingCounter>(counter);
  whizbang::ServiceRunnerConfig config;
  config.service_name = whizbang::test::unique_name("pgdown");
  config.store = "postgresql:///whizbang_test?host=" + dir + "&port=" + port + "&user=whizbang";
  config.failure_grace = 200ms;
  {
    whizbang::ServiceRunnerHooks hooks;
    hooks.host = [](whizbang::HostOptions& options) { options.poll_interval = 20ms; };
    auto runner = whizbang::ServiceRunner::start(
        whizbang::generated::runner_test_receptors::registry(), services, config, hooks);
    ASSERT_TRUE(runner.ok()) << runner.status();
    ASSERT_TRUE(eventually([&] { return (*runner)->readiness().ok(); })) << (*runner)->readiness();

    ASSERT_EQ(server("stop"), 0);
    ASSERT_TRUE(eventually([&] { return !(*runner)->readiness().ok(); }));
    EXPECT_NE((*runner)->readiness().message().find("cycle has failed"), std::string_view::npos)
        << (*runner)->readiness();

    ASSERT_EQ(server("start"), 0);
    EXPECT_TRUE(eventually([&] { return (*runner)->readiness().ok(); })) << (*runner)->readiness();
  }
  EXPECT_EQ(server("down"), 0);
}

}  // namespace
}  // namespace runner_test
