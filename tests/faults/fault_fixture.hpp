// Services for the fault tests: a host over a memory or SQLite store and the in-process
// transport, each with its own Faults (what its receptors do and how often they fired), a clock
// the tests move, metrics and captured log lines.
#pragma once

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <whizbang/dispatch/outbox_routing.hpp>
#include <whizbang/host/service_host.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/store/postgres/postgres_work_store.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>
#include <whizbang/transport/publish_strategy.hpp>

#include "fault_receptors.hpp"
#include "support/log_capture.hpp"
#include "support/postgres_schema.hpp"
#include "support/store_backend.hpp"
#include "support/temp_dir.hpp"
#include "whizbang_registry.hpp"

namespace faults {

inline const whizbang::Registry& fault_registry() {
  return whizbang::generated::whizbang_fault_tests::registry();
}

using whizbang_test::all_backends;
using whizbang_test::Backend;
using whizbang_test::backend_name;

// A clock the tests move by hand, so backoffs and leases pass without waiting.
class TestClock {
 public:
  whizbang::TimePoint now() const {
    std::lock_guard lock(mutex_);
    return now_;
  }
  void advance(std::chrono::microseconds by) {
    std::lock_guard lock(mutex_);
    now_ += by;
  }

 private:
  mutable std::mutex mutex_;
  whizbang::TimePoint now_{std::chrono::seconds(1'750'000'000)};
};

using LogCapture = whizbang_test::LogCapture;

using TestDir = whizbang_test::TempDir;

struct ServiceConfig {
  Backend backend = Backend::Memory;
  std::string name;
  whizbang::Transport* transport = nullptr;
  TestClock* clock = nullptr;
  LogCapture* log = nullptr;
  const TestDir* dir = nullptr;
  int max_attempts = 10;
  // Adjusts the host's options before it is created.
  std::function<void(whizbang::HostOptions&)> configure{};
  // Wraps the opened store (fault injection, HookedStore).
  std::function<std::unique_ptr<whizbang::WorkStore>(std::unique_ptr<whizbang::WorkStore>)>
      wrap_store{};
};

// One hosted service: its Faults, its store and its host (subscribed, not started).
class Service {
 public:
  explicit Service(ServiceConfig config) : config_(std::move(config)) {
    services_.add<Faults>(faults);
    open_store();
    if (config_.wrap_store) store = config_.wrap_store(std::move(store));
    whizbang::HostOptions options;
    options.service_name = config_.name;
    options.store = store.get();
    options.transport = config_.transport;
    options.poll_interval = std::chrono::milliseconds(2);
    options.purge_interval = std::chrono::milliseconds(0);
    if (config_.log != nullptr) options.logger = config_.log->logger;
    if (config_.configure) config_.configure(options);
    auto created = whizbang::ServiceHost::create(fault_registry(), services_, std::move(options));
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return;
    host = *std::move(created);
    EXPECT_TRUE(host->subscribe().ok());
  }

  whizbang::HostCycle step() {
    absl::StatusOr<whizbang::HostCycle> cycle = host->run_once();
    EXPECT_TRUE(cycle.ok()) << cycle.status();
    return cycle.ok() ? *cycle : whizbang::HostCycle{};
  }

  Faults faults;
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;
  std::shared_ptr<whizbang::InMemoryMetrics> metrics =
      std::make_shared<whizbang::InMemoryMetrics>();

 private:
  void open_store() {
    whizbang::StoreOptions options;
    options.instance.service_name = config_.name;
    options.max_attempts = config_.max_attempts;
    options.metrics = metrics;
    if (config_.log != nullptr) options.logger = config_.log->logger;
    if (config_.clock != nullptr) options.now = [clock = config_.clock] { return clock->now(); };
    if (config_.backend == Backend::Memory) {
      store = std::make_unique<whizbang::MemoryWorkStore>(options);
      return;
    }
    if (config_.backend == Backend::Postgres) {
      // One schema per test and service name, as one file per service name below.
      auto postgres = whizbang::PostgresWorkStore::open(
          whizbang_test::shared_postgres_schema(config_.dir->file(config_.name)), options);
      EXPECT_TRUE(postgres.ok()) << postgres.status();
      if (postgres.ok()) store = *std::move(postgres);
      return;
    }
    // One file per service name: two Services of one name are two instances of one service.
    auto sqlite = whizbang::SqliteWorkStore::open(config_.dir->file(config_.name + ".db"), options);
    EXPECT_TRUE(sqlite.ok()) << sqlite.status();
    if (sqlite.ok()) store = *std::move(sqlite);
  }

  ServiceConfig config_;
  whizbang::ServiceRegistry services_;
};

// Steps every service until a whole round moves nothing.
inline void settle(std::initializer_list<Service*> services, int rounds = 20) {
  for (int round = 0; round < rounds; ++round) {
    bool moved = false;
    for (Service* service : services) {
      const whizbang::HostCycle cycle = service->step();
      moved |= cycle.outbox.published + cycle.outbox.event_store_only + cycle.outbox.failed +
                   cycle.inbox.handled + cycle.inbox.failed + cycle.perspectives.applied +
                   cycle.perspectives.failed + cycle.perspectives.lifecycle_completed +
                   cycle.perspectives.lifecycle_failed + cycle.outbox.deferred_written >
               0;
    }
    if (!moved) return;
  }
}

inline PlaceOrder place(std::string id, int steps = 1) {
  PlaceOrder command;
  command.order_id = std::move(id);
  command.steps = steps;
  return command;
}

// Where commands travel: the default, each namespace's own inbox.
inline const whizbang::CommandInboxes kCommandInboxes;

// Publishes `message` on `transport` as service `from` would: the way a message reaches a
// service's inbox from elsewhere. Returns its id.
template <class Message>
whizbang::MessageId deliver(whizbang::Transport& transport, const Message& message,
                            std::string from = "elsewhere") {
  whizbang::ServiceInstance origin;
  origin.service_name = std::move(from);
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(message), origin);
  envelope.hops.front().stream_id = envelope.message_id.uuid();
  const whizbang::MessageTypeInfo& info = whizbang::MessageTraits<Message>::info();
  const bool is_event = info.kind == whizbang::MessageKind::Event;
  const whizbang::TransportMessage sent{envelope.message_id, std::string(info.wire_name),
                                        whizbang::serialize_envelope(envelope),
                                        envelope.stream_id(), is_event};
  const whizbang::TransportDestination destination{
      is_event ? whizbang::default_destination(info)
               : whizbang::command_destination(info.wire_name, kCommandInboxes, "inbox").address,
      whizbang::routing_key_for(info.wire_name),
      {}};
  EXPECT_TRUE(transport.publish(destination, {&sent, 1}).ok());
  return envelope.message_id;
}

inline ShipOrder ship(std::string id) {
  ShipOrder command;
  command.order_id = std::move(id);
  return command;
}

inline OrderShipped shipped(std::string id) {
  OrderShipped event;
  event.order_id = std::move(id);
  return event;
}

}  // namespace faults
