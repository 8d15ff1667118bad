// Where a service process's lines go (docs/guide/14-running-services.md): the logger the host hook
// leaves in HostOptions::logger gets the runner's own lines and the transport's, spdlog's default
// logger none. And a service with no receptors (a job that only publishes) opens no subscription.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <whizbang/dispatch/outbox_routing.hpp>
#include <whizbang/host/service_runner.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_topology.hpp>

#include <atomic>
#include <string>
#include <vector>

#include "runner_receptors.hpp"
#include "support/forwarding_transport.hpp"
#include "support/log_capture.hpp"
#include "support/rabbitmq_broker.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace runner_test::logger {
namespace {

using namespace std::chrono_literals;

const whizbang::Registry& registry() {
  return whizbang::generated::runner_test_receptors::registry();
}

// Installs `logger` as spdlog's default for its lifetime.
class ScopedDefaultLogger {
 public:
  explicit ScopedDefaultLogger(std::shared_ptr<spdlog::logger> logger)
      : saved_(spdlog::default_logger()) {
    spdlog::set_default_logger(std::move(logger));
  }
  ~ScopedDefaultLogger() { spdlog::set_default_logger(saved_); }

 private:
  std::shared_ptr<spdlog::logger> saved_;
};

TEST(RunnerLoggerTests, HostLogger_GetsTheRunnersAndTheTransportsLines_TheDefaultLoggerNone) {
  whizbang_test::LogCapture configured;
  whizbang_test::LogCapture fallback;
  const ScopedDefaultLogger default_logger(fallback.logger);
  PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<PingCounter>(counter);
  const std::string name = whizbang::test::unique_name("logged");
  whizbang::ServiceRunnerHooks hooks;
  hooks.host = [&](whizbang::HostOptions& options) { options.logger = configured.logger; };
  // The stop signal, once started, for this thread alone: run_service_main blocked it here and
  // waits for it with sigwait().
  hooks.started = [](whizbang::ServiceRunner&) {
    pthread_kill(pthread_self(), SIGTERM);
    return absl::OkStatus();
  };
  std::vector<const char*> args = {"service", "--service", name.c_str(), "--transport", "amqp:"};
  const int exit_code =
      whizbang::run_service_main(static_cast<int>(args.size()), const_cast<char**>(args.data()),
                                 registry(), services, std::move(hooks));
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
  ASSERT_EQ(exit_code, 0);

  // The transport's (its publisher connected) and the runner's own.
  EXPECT_EQ(configured.count("[EventId 151 TransportConnected] publisher connected"), 1);
  EXPECT_EQ(configured.count("service '" + name + "' running (store: memory, transport: rabbitmq"),
            1);
  EXPECT_EQ(configured.count("service '" + name + "' stopped on signal"), 1);
  EXPECT_EQ(fallback.count("EventId"), 0);
  EXPECT_EQ(fallback.count(name), 0);
}

TEST(RunnerLoggerTests, HostHook_SetsNoLogger_SpdlogsDefaultAsBefore) {
  whizbang_test::LogCapture fallback;
  const ScopedDefaultLogger default_logger(fallback.logger);
  PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<PingCounter>(counter);
  whizbang::ServiceRunnerConfig config;
  config.service_name = whizbang::test::unique_name("default-logged");
  config.transport = "amqp:";
  auto runner = whizbang::ServiceRunner::start(registry(), services, config);
  ASSERT_TRUE(runner.ok()) << runner.status();
  EXPECT_EQ((*runner)->logger(), fallback.logger);
  EXPECT_EQ((*runner)->host().options().logger, fallback.logger);
  (*runner)->stop();
  EXPECT_GE(fallback.count("[EventId 151 TransportConnected]"), 1);
}

// A registry with the runner test's message types and none of its receptors: a job process.
class JobRegistry {
 public:
  JobRegistry() {
    for (whizbang::MessageEntry entry : registry().messages()) {
      entry.first_receptor = 0;
      entry.receptor_count = 0;
      entry.receptor_default_routing.reset();
      entry.perspectives = {};
      entries_.push_back(entry);
    }
    registry_.emplace("job", entries_, std::span<const whizbang::ReceptorInfo>(), nullptr);
  }
  const whizbang::Registry& get() const { return *registry_; }

 private:
  std::vector<whizbang::MessageEntry> entries_;
  std::optional<whizbang::Registry> registry_;
};

class CountingTransport final : public test_support::ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  absl::StatusOr<std::unique_ptr<whizbang::TransportSubscription>> subscribe(
      std::string_view service_name, std::vector<whizbang::TransportBinding> bindings,
      DeliveryHandler handler) override {
    ++subscriptions;
    return ForwardingTransport::subscribe(service_name, std::move(bindings), std::move(handler));
  }
  std::atomic<int> subscriptions{0};
};

TEST(NoReceptorsTests, JobThatOnlyPublishes_OpensNoSubscription_ItsEventsStillLeave) {
  whizbang::InProcessTransport inner;
  CountingTransport transport(inner);
  // Someone else listening for what the job publishes.
  std::atomic<int> received{0};
  auto listener = inner.subscribe(
      "listener", {{whizbang::default_destination(whizbang::MessageTraits<Pinged>::info()), ""}},
      [&](const whizbang::TransportDestination&,
          std::span<const whizbang::TransportMessage> batch) {
        received += static_cast<int>(batch.size());
        return whizbang::DeliveryOutcome();
      });
  ASSERT_TRUE(listener.ok()) << listener.status();

  const JobRegistry job;
  whizbang::MemoryWorkStore store;
  whizbang::ServiceRegistry services;
  whizbang::HostOptions options;
  options.service_name = "nightly-job";
  options.store = &store;
  options.transport = &transport;
  auto host = whizbang::ServiceHost::create(job.get(), services, std::move(options));
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE((*host)->bindings().empty());
  ASSERT_TRUE((*host)->subscribe().ok());
  EXPECT_EQ(transport.subscriptions.load(), 0);

  Pinged pinged;
  pinged.text = "done";
  ASSERT_TRUE((*host)->dispatcher().publish(pinged).ok());
  ASSERT_TRUE((*host)->run_once().ok());
  EXPECT_EQ(received.load(), 1);
  EXPECT_EQ(transport.subscriptions.load(), 0);
  // The same registry with its receptors subscribes (the count above is not vacuous).
  whizbang::MemoryWorkStore other_store;
  PingCounter counter;
  whizbang::ServiceRegistry other_services;
  other_services.add<PingCounter>(counter);
  whizbang::HostOptions other;
  other.service_name = "pinger";
  other.store = &other_store;
  other.transport = &transport;
  auto handling = whizbang::ServiceHost::create(registry(), other_services, std::move(other));
  ASSERT_TRUE(handling.ok()) << handling.status();
  ASSERT_TRUE((*handling)->subscribe().ok());
  EXPECT_EQ(transport.subscriptions.load(), 1);
}

TEST(NoReceptorsTests, JobProcessOverTheBroker_ReadyWithoutAnyQueue) {
  const JobRegistry job;
  whizbang::ServiceRegistry services;
  whizbang::ServiceRunnerConfig config;
  config.service_name = whizbang::test::unique_name("job");
  config.transport = "amqp:";
  auto runner = whizbang::ServiceRunner::start(job.get(), services, config);
  ASSERT_TRUE(runner.ok()) << runner.status();
  EXPECT_TRUE((*runner)->host().bindings().empty());
  EXPECT_TRUE((*runner)->readiness().ok()) << (*runner)->readiness();
  (*runner)->stop();
  // With its receptor it would have declared its Ping inbox's queue; without, it has none.
  whizbang::test::RawAmqp raw(whizbang::test::test_rabbitmq_options());
  EXPECT_FALSE(
      raw.message_count(whizbang::rabbitmq_queue_name(config.service_name, "inbox.runner_test"))
          .has_value());
}

}  // namespace
}  // namespace runner_test::logger
