// Hosted services for the tracing tests: a memory store on a clock the tests move, the
// in-process transport, a RecordingSpanSink (tracing on) or none (off), and metrics.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <whizbang/dispatch/outbox_routing.hpp>
#include <whizbang/host/service_host.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/message/wire_routing.hpp>
#include <whizbang/observability/metrics.hpp>
#include <whizbang/observability/trace_names.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/command_inboxes.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "support/recording_span_sink.hpp"
#include "tracing_messages.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace tracing_test {

// A clock the tests move by hand, so retry backoffs pass without waiting.
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

struct ServiceConfig {
  std::string name;
  whizbang::InProcessTransport* transport = nullptr;
  TestClock* clock = nullptr;
  bool traced = true;
  std::function<void(whizbang::HostOptions&)> configure{};
};

// One hosted service (subscribed, stepped by the test).
class Service {
 public:
  explicit Service(ServiceConfig config) : config_(std::move(config)) {
    services_.add<TraceLog>(log);
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = config_.name;
    store_options.metrics = metrics;
    if (config_.clock != nullptr) {
      store_options.now = [clock = config_.clock] { return clock->now(); };
    }
    store = std::make_unique<whizbang::MemoryWorkStore>(store_options);
    whizbang::HostOptions options;
    options.service_name = config_.name;
    options.store = store.get();
    options.transport = config_.transport;
    options.poll_interval = std::chrono::milliseconds(2);
    options.purge_interval = std::chrono::milliseconds(0);
    options.metrics = metrics;
    if (config_.traced) options.span_sink = sink;
    if (config_.configure) config_.configure(options);
    auto created = whizbang::ServiceHost::create(
        whizbang::generated::whizbang_tracing_tests::registry(), services_, std::move(options));
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

  std::int64_t invalid_trace_parents() const {
    return metrics->counter(whizbang::metric_names::kTracingMeter,
                            whizbang::metric_names::kTraceParentInvalid, {});
  }

  TraceLog log;
  std::shared_ptr<whizbang_test::RecordingSpanSink> sink =
      std::make_shared<whizbang_test::RecordingSpanSink>();
  std::shared_ptr<whizbang::InMemoryMetrics> metrics =
      std::make_shared<whizbang::InMemoryMetrics>();
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;

 private:
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
                   cycle.inbox.handled + cycle.inbox.failed + cycle.outbox.deferred_written >
               0;
    }
    if (!moved) return;
  }
}

// An envelope for `message` from service `from`, as a sender writes it.
template <class Message>
whizbang::Envelope envelope_of(const Message& message, std::string from = "elsewhere") {
  whizbang::ServiceInstance origin;
  origin.service_name = std::move(from);
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(message), origin);
  envelope.hops.front().stream_id = envelope.message_id.uuid();
  return envelope;
}

// Publishes `envelope` on the transport where its message type is bound.
inline void deliver(whizbang::Transport& transport, const whizbang::Envelope& envelope) {
  const whizbang::MessageTypeInfo& info = *envelope.payload.info();
  const bool is_event = info.kind == whizbang::MessageKind::Event;
  const whizbang::TransportMessage sent{envelope.message_id, std::string(info.wire_name),
                                        whizbang::serialize_envelope(envelope),
                                        envelope.stream_id(), is_event};
  // A command travels on its namespace's inbox (the default CommandInboxes).
  const whizbang::TransportDestination destination =
      is_event ? whizbang::TransportDestination{whizbang::default_destination(info),
                                                whizbang::routing_key_for(info.wire_name),
                                                {}}
               : whizbang::command_destination(info.wire_name, {}, "inbox");
  EXPECT_TRUE(transport.publish(destination, {&sent, 1}).ok());
}

// The envelopes published for messages of `wire_name`, oldest first.
inline std::vector<whizbang::Envelope> published_envelopes(
    const whizbang::InProcessTransport& transport, std::string_view wire_name) {
  std::vector<whizbang::Envelope> found;
  for (const auto& published : transport.published()) {
    if (published.message.message_type != wire_name) continue;
    auto envelope =
        whizbang::deserialize_envelope(published.message.envelope_json, [](std::string_view name) {
          return whizbang::generated::whizbang_tracing_tests::registry().find_message(name);
        });
    EXPECT_TRUE(envelope.ok()) << envelope.status();
    if (envelope.ok()) found.push_back(*std::move(envelope));
  }
  return found;
}

}  // namespace tracing_test
