// Shared fixtures for the store, worker and transport tests: hand-written message types (the
// generator's output shape), a manual clock, log capture, temp dirs and row builders.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "spdlog/sinks/base_sink.h"
#include "spdlog/spdlog.h"
#include "support/temp_dir.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/message/json_codec.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/outbox_message.hpp"
#include "whizbang/transport/transport.hpp"

namespace store_test {

struct OrderCreated {
  std::string order_id;
  std::int64_t amount = 0;
};
struct ShipOrderCommand {
  std::string order_id;
};
struct AuditEvent {
  std::string action;
};

// The row as a transport delivers it to a receiving service.
inline whizbang::TransportMessage transport_message(const whizbang::OutboxMessage& from) {
  whizbang::TransportMessage message;
  message.message_id = from.message_id;
  message.message_type = from.message_type;
  message.envelope_json = from.envelope_json;
  message.stream_id = from.stream_id;
  message.is_event = from.is_event;
  return message;
}

}  // namespace store_test

namespace whizbang {

template <>
struct JsonCodec<store_test::OrderCreated> {
  static void write(internal::JsonWriter& writer, const store_test::OrderCreated& value,
                    internal::JsonStyle) {
    writer.StartObject();
    internal::write_member(writer, "order_id", value.order_id);
    internal::write_member(writer, "amount", value.amount);
    writer.EndObject();
  }
  static absl::Status read(const internal::JsonValue& json, store_test::OrderCreated& out,
                           const std::string& path, internal::JsonStyle) {
    if (absl::Status s = internal::read_member(json, "order_id", out.order_id, path); !s.ok()) {
      return s;
    }
    return internal::read_member(json, "amount", out.amount, path);
  }
};
template <>
struct JsonCodec<store_test::ShipOrderCommand> {
  static void write(internal::JsonWriter& writer, const store_test::ShipOrderCommand& value,
                    internal::JsonStyle) {
    writer.StartObject();
    internal::write_member(writer, "order_id", value.order_id);
    writer.EndObject();
  }
  static absl::Status read(const internal::JsonValue& json, store_test::ShipOrderCommand& out,
                           const std::string& path, internal::JsonStyle) {
    return internal::read_member(json, "order_id", out.order_id, path);
  }
};
template <>
struct JsonCodec<store_test::AuditEvent> {
  static void write(internal::JsonWriter& writer, const store_test::AuditEvent& value,
                    internal::JsonStyle) {
    writer.StartObject();
    internal::write_member(writer, "action", value.action);
    writer.EndObject();
  }
  static absl::Status read(const internal::JsonValue& json, store_test::AuditEvent& out,
                           const std::string& path, internal::JsonStyle) {
    return internal::read_member(json, "action", out.action, path);
  }
};

#define STORE_TEST_MESSAGE(Type, Kind)                                                           \
  template <>                                                                                    \
  struct MessageTraits<store_test::Type> {                                                       \
    static constexpr MessageTypeInfo kInfo = internal::make_message_type_info<store_test::Type>( \
        "store_test::" #Type, "store_test::" #Type, MessageKind::Kind, std::nullopt,             \
        SourceLocation{"tests/store/store_test_support.hpp", __LINE__});                         \
    static const MessageTypeInfo& info() { return kInfo; }                                       \
  };
STORE_TEST_MESSAGE(OrderCreated, Event)
STORE_TEST_MESSAGE(ShipOrderCommand, Command)
STORE_TEST_MESSAGE(AuditEvent, Event)
#undef STORE_TEST_MESSAGE

}  // namespace whizbang

namespace store_test {

inline const whizbang::MessageTypeInfo* resolve(std::string_view wire_name) {
  for (const whizbang::MessageTypeInfo* info : {&whizbang::MessageTraits<OrderCreated>::info(),
                                                &whizbang::MessageTraits<ShipOrderCommand>::info(),
                                                &whizbang::MessageTraits<AuditEvent>::info()}) {
    if (info->wire_name == wire_name) return info;
  }
  return nullptr;
}

// A clock tests move by hand, so lease expiry and backoff need no sleeping.
class ManualClock {
 public:
  ManualClock() : now_(whizbang::TimePoint(std::chrono::seconds(1'750'000'000))) {}
  whizbang::TimePoint now() const {
    std::lock_guard lock(mutex_);
    return now_;
  }
  void advance(std::chrono::microseconds by) {
    std::lock_guard lock(mutex_);
    now_ += by;
  }
  std::function<whizbang::TimePoint()> fn() {
    return [this] { return now(); };
  }

 private:
  mutable std::mutex mutex_;
  whizbang::TimePoint now_;
};

struct LogLine {
  spdlog::level::level_enum level;
  std::string text;
};

// Collects formatted lines; `has(id, level)` looks for "[EventId <id> ".
class CaptureSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<LogLine> lines() {
    std::lock_guard lock(lines_mutex_);
    return lines_;
  }
  int count(int event_id, spdlog::level::level_enum level) {
    const std::string tag = "[EventId " + std::to_string(event_id) + " ";
    int n = 0;
    for (const LogLine& line : lines()) {
      if (line.level == level && line.text.find(tag) != std::string::npos) ++n;
    }
    return n;
  }
  int count_any_level(int event_id) {
    const std::string tag = "[EventId " + std::to_string(event_id) + " ";
    int n = 0;
    for (const LogLine& line : lines()) n += line.text.find(tag) != std::string::npos ? 1 : 0;
    return n;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::lock_guard lock(lines_mutex_);
    lines_.push_back({msg.level, std::string(msg.payload.data(), msg.payload.size())});
  }
  void flush_() override {}

 private:
  std::mutex lines_mutex_;
  std::vector<LogLine> lines_;
};

struct CapturedLogger {
  std::shared_ptr<CaptureSink> sink = std::make_shared<CaptureSink>();
  std::shared_ptr<spdlog::logger> logger;
  CapturedLogger() : logger(std::make_shared<spdlog::logger>("test", sink)) {
    logger->set_level(spdlog::level::trace);
  }
};

using TempDir = whizbang_test::TempDir;

inline whizbang::ServiceInstance instance(std::string service) {
  return {std::move(service), whizbang::MessageId::mint().uuid(), "test-host", 4242};
}

// An outbox row whose envelope carries `payload` with `id`.
template <class T>
whizbang::OutboxMessage outbox_message(T payload, std::optional<std::string> destination,
                                       std::optional<whizbang::Uuid> stream = std::nullopt,
                                       whizbang::MessageId id = whizbang::MessageId::mint()) {
  whizbang::Envelope envelope = whizbang::Envelope::create(
      whizbang::AnyMessage::make(std::move(payload)), instance("orders"));
  envelope.message_id = id;
  envelope.hops.front().stream_id = stream;
  whizbang::OutboxMessage message;
  message.message_id = id;
  message.destination = std::move(destination);
  message.message_type = std::string(whizbang::MessageTraits<T>::info().wire_name);
  message.envelope_json = whizbang::serialize_envelope(envelope);
  message.stream_id = stream;
  message.is_event = whizbang::MessageTraits<T>::info().kind == whizbang::MessageKind::Event;
  return message;
}

// Every member the envelope encoder writes, with text that needs escaping (quotes, backslash,
// non-ASCII, control characters), two hops and two invocation records.
inline whizbang::Envelope full_envelope() {
  using namespace whizbang;
  using namespace std::chrono_literals;
  Envelope envelope =
      Envelope::create(AnyMessage::make(OrderCreated{"o-\"1\"\\ü", -12}), instance("orders"));
  MessageHop& first = envelope.hops.front();
  first.correlation_id = MessageId::mint();
  first.causation_id = MessageId::mint();
  first.causation_type = "store_test::ShipOrderCommand";
  first.topic = "orders";
  first.stream_id = MessageId::mint().uuid();
  first.scope = SecurityScope{"user-1", "tenant-9"};
  first.metadata = {{"b", "2"}, {"a", "1"}, {"trace\n", "\t\x01"}};
  first.duration = 1500us;
  MessageHop causation;
  causation.type = HopType::Causation;
  causation.service_instance = instance("billing");
  causation.timestamp = TimePoint(std::chrono::microseconds(1'700'000'000'123'456));
  envelope.hops.push_back(causation);
  envelope.receptor_invocations.push_back(
      {"shop::Mailer", Stage::PostInboxDetached, TimePoint(1'700'000'000s), 42us, "orders", ""});
  envelope.receptor_invocations.push_back({"shop::Projector", Stage::PostPerspectiveInline,
                                           TimePoint(1'700'000'001s), 7us, "", "Summary"});
  envelope.dispatch_context = {DispatchModes::Both, MessageSource::Outbox, true, ""};
  envelope.source_service_id = MessageId::mint().uuid();
  return envelope;
}

inline whizbang::InboxMessage inbox_message(const whizbang::OutboxMessage& from,
                                            whizbang::Uuid source_service = {}) {
  whizbang::InboxMessage message;
  message.message_id = from.message_id;
  message.handler_name = from.message_type + "Handler";
  message.message_type = from.message_type;
  message.envelope_json = from.envelope_json;
  message.stream_id = from.stream_id;
  message.is_event = from.is_event;
  message.source_service_id = source_service;
  return message;
}

// A delivery of OrderCreated{order_id, 1} sent to "orders", as the broker hands it to an inbox.
inline whizbang::TransportMessage delivered_order(std::string order_id) {
  return transport_message(outbox_message(OrderCreated{std::move(order_id), 1}, "orders"));
}

}  // namespace store_test
