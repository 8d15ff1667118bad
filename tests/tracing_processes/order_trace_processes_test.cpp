// One order's trace across two service PROCESSES over the run's RabbitMQ broker
// (docs/guide/18-tracing.md): orders (trace_e2e_orders_service) places the order, shipping
// (trace_e2e_shipping_service) ships it, failing the first attempt. Both run the process runner
// with --otlp-endpoint at this test's OTLP receiver, their stores in SQLite files of the test.
// What the receiver decoded must be one trace with the parent/child links, the messaging
// attributes, the retry's link and the guardrail's decision on the spans.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <whizbang/dispatch/outbox_routing.hpp>
#include <whizbang/message/wire_routing.hpp>
#include <whizbang/observability/trace_names.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/recording_span_sink.hpp"
#include "support/temp_dir.hpp"
#include "trace_e2e/messages.hpp"
#include "trace_receiver.hpp"
#include "whizbang_messages.hpp"

namespace {

namespace names = whizbang::span_names;
namespace keys = whizbang::span_attributes;
namespace values = whizbang::span_values;
using whizbang::ReceivedSpan;
using whizbang_test::int_attribute;
using whizbang_test::string_attribute;
using namespace std::chrono_literals;

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

// A service executable run as a process of its own; SIGTERM (a clean stop, which flushes its
// spans) and reaped when the test ends, however it ends.
class ServiceProcess {
 public:
  ServiceProcess(const char* executable, std::vector<std::string> args,
                 std::vector<std::pair<std::string, std::string>> environment = {})
      : port_(free_port()) {
    args.insert(args.begin(), executable);
    args.push_back("--http-port");
    args.push_back(std::to_string(port_));
    // Everything the child needs is made before fork(): only exec runs in it.
    std::vector<std::string> variables;
    for (char** variable = environ; *variable != nullptr; ++variable) {
      variables.emplace_back(*variable);
    }
    for (const auto& [name, value] : environment) variables.push_back(name + "=" + value);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& variable : variables) envp.push_back(variable.data());
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      execve(executable, argv.data(), envp.data());
      _exit(127);
    }
  }
  ~ServiceProcess() { stop(); }
  ServiceProcess(const ServiceProcess&) = delete;
  ServiceProcess& operator=(const ServiceProcess&) = delete;

  // Ready is a state the process reaches: asked until it says so (30 s at most), or until the
  // process is gone.
  bool wait_until_ready() {
    httplib::Client client("127.0.0.1", port_);
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline && pid_ > 0) {
      auto response = client.Get("/readyz");
      if (response && response->status == 200) return true;
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  // SIGTERM and the exit status (0: stopped cleanly).
  int stop() {
    if (pid_ <= 0) return exit_status_;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exit_status_;
  }

 private:
  int port_;
  pid_t pid_ = -1;
  int exit_status_ = -1;
};

template <class Message>
std::string wire() {
  return std::string(whizbang::MessageTraits<Message>::info().wire_name);
}

std::string named(std::string_view prefix, std::string_view subject) {
  std::string name(prefix);
  name.append(subject);
  return name;
}

// The spans one service sent of that name, in the order received.
std::vector<whizbang::SpanData> spans_of(const std::vector<ReceivedSpan>& spans,
                                         const std::string& service, const std::string& name) {
  std::vector<whizbang::SpanData> found;
  for (const ReceivedSpan& received : spans) {
    if (received.service == service && received.span.name == name) found.push_back(received.span);
  }
  return found;
}

// The one span of a service by that name with `attribute` = `value` (the first when several).
std::optional<whizbang::SpanData> span_with(const std::vector<ReceivedSpan>& spans,
                                            const std::string& service, const std::string& name,
                                            std::string_view attribute, std::int64_t value) {
  for (const whizbang::SpanData& span : spans_of(spans, service, name)) {
    if (int_attribute(span, attribute) == value) return span;
  }
  return std::nullopt;
}

TEST(OrderTraceProcessesTests,
     OneOrderAcrossTwoProcessesOverRabbitMq_OneTreeWithLinksAttributesRetryAndDecision) {
  const char* amqp = std::getenv("WHIZBANG_AMQP_URL");
  ASSERT_NE(amqp, nullptr) << "run through ctest: the rabbitmq fixture";
  auto receiver = whizbang::TraceReceiver::start();
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  whizbang_test::TempDir dir;
  // Service names of this run only: their queues on the run's broker are new.
  const std::string run = std::to_string(getpid());
  const std::string orders = "trace-orders-" + run;
  const std::string shipping = "trace-shipping-" + run;
  const std::string endpoint = (*receiver)->endpoint();
  auto args = [&](const std::string& service) {
    return std::vector<std::string>{
        "--service",   service, "--store",         "sqlite:" + dir.file(service + ".db"),
        "--transport", "amqp:", "--otlp-endpoint", endpoint};
  };
  // Shipping first: its queue must be bound before orders publishes the event.
  ServiceProcess shipping_process(TRACE_E2E_SHIPPING_SERVICE, args(shipping));
  ASSERT_TRUE(shipping_process.wait_until_ready());
  ServiceProcess orders_process(TRACE_E2E_ORDERS_SERVICE, args(orders),
                                {{"TRACE_E2E_ORDER", "order-" + run}});
  ASSERT_TRUE(orders_process.wait_until_ready());

  const std::string process_placed = named(names::kProcessPrefix, wire<trace_e2e::OrderPlaced>());
  const std::string ship = named(names::kReceptorPrefix, "trace_e2e::ShipOrderReceptor");
  const std::string audit = named(names::kReceptorPrefix, "trace_e2e::AuditOrder");
  const std::string destination =
      whizbang::default_destination(whizbang::MessageTraits<trace_e2e::OrderPlaced>::info());
  const std::string publish_placed = named(names::kPublishPrefix, destination);
  const std::string settle_placed = named(names::kSettlePrefix, destination);
  // Done once shipping's second attempt shipped (its receptor span fired) and orders' publish
  // arrived: each exporter sends within its 1 s delay.
  const bool arrived = (*receiver)->wait_until(
      [&](const std::vector<ReceivedSpan>& spans) {
        bool shipped = false;
        for (const whizbang::SpanData& span : spans_of(spans, shipping, ship)) {
          shipped |= string_attribute(span, keys::kExactlyOnceDecision) == values::kDecisionFired &&
                     span.status != whizbang::SpanStatusCode::Error;
        }
        return shipped && spans_of(spans, shipping, process_placed).size() >= 2 &&
               !spans_of(spans, shipping, settle_placed).empty() &&
               !spans_of(spans, shipping, audit).empty() &&
               !spans_of(spans, orders, publish_placed).empty();
      },
      60s);
  EXPECT_EQ(shipping_process.stop(), 0);
  EXPECT_EQ(orders_process.stop(), 0);
  const std::vector<ReceivedSpan> spans = (*receiver)->spans();
  ASSERT_TRUE(arrived) << spans.size() << " spans arrived, not all expected";

  // Orders: the order's dispatch, its receptor, the event's dispatch and its publish.
  const auto root =
      spans_of(spans, orders, named(names::kDispatchPrefix, wire<trace_e2e::PlaceOrder>()));
  ASSERT_EQ(root.size(), 1u);
  EXPECT_FALSE(root[0].parent_span_id.has_value()) << "the order starts the trace";
  const whizbang::TraceId trace = root[0].context.trace_id;
  const auto placing =
      spans_of(spans, orders, named(names::kReceptorPrefix, "trace_e2e::PlaceOrderReceptor"));
  ASSERT_EQ(placing.size(), 1u);
  const auto dispatch_placed =
      spans_of(spans, orders, named(names::kDispatchPrefix, wire<trace_e2e::OrderPlaced>()));
  ASSERT_EQ(dispatch_placed.size(), 1u);
  EXPECT_EQ(dispatch_placed[0].parent_span_id, placing[0].context.span_id);
  const std::optional<std::string> placed_id =
      string_attribute(dispatch_placed[0], keys::kMessagingMessageId);
  ASSERT_TRUE(placed_id.has_value());

  const auto publish = spans_of(spans, orders, publish_placed);
  ASSERT_EQ(publish.size(), 1u);
  EXPECT_EQ(publish[0].kind, whizbang::SpanKind::Producer);
  EXPECT_EQ(publish[0].parent_span_id, dispatch_placed[0].context.span_id);
  EXPECT_EQ(string_attribute(publish[0], keys::kMessagingSystem), values::kSystemRabbitMq);
  EXPECT_EQ(string_attribute(publish[0], keys::kMessagingOperationType), values::kOperationPublish);
  EXPECT_EQ(string_attribute(publish[0], keys::kMessagingDestinationName), destination);
  EXPECT_EQ(string_attribute(publish[0], keys::kRabbitMqRoutingKey),
            whizbang::routing_key_for(wire<trace_e2e::OrderPlaced>()));
  EXPECT_EQ(string_attribute(publish[0], keys::kMessagingMessageId), placed_id);

  // Orders' AuditOrder fired on the event's local dispatch.
  bool audited_in_orders = false;
  for (const whizbang::SpanData& span : spans_of(spans, orders, audit)) {
    audited_in_orders |=
        span.parent_span_id == dispatch_placed[0].context.span_id &&
        string_attribute(span, keys::kExactlyOnceDecision) == values::kDecisionFired;
  }
  EXPECT_TRUE(audited_in_orders);

  // Shipping: the delivery and both attempts continue the trace from the hop's `tp` (the event's
  // dispatch span in the other process).
  const auto receive =
      spans_of(spans, shipping, named(names::kReceivePrefix, wire<trace_e2e::OrderPlaced>()));
  ASSERT_GE(receive.size(), 1u);
  EXPECT_EQ(receive[0].kind, whizbang::SpanKind::Consumer);
  EXPECT_EQ(receive[0].context.trace_id, trace) << "across the processes";
  EXPECT_EQ(receive[0].parent_span_id, dispatch_placed[0].context.span_id);
  EXPECT_EQ(string_attribute(receive[0], keys::kMessagingSystem), values::kSystemRabbitMq);
  EXPECT_EQ(string_attribute(receive[0], keys::kMessagingOperationType), values::kOperationReceive);
  EXPECT_EQ(string_attribute(receive[0], keys::kMessagingMessageId), placed_id);

  // The delivery's ack on the broker: a settle span under the receive span.
  const auto settles = spans_of(spans, shipping, settle_placed);
  const auto settle = std::find_if(settles.begin(), settles.end(), [&](const auto& span) {
    return span.parent_span_id == receive[0].context.span_id;
  });
  ASSERT_NE(settle, settles.end());
  EXPECT_EQ(settle->kind, whizbang::SpanKind::Client);
  EXPECT_EQ(string_attribute(*settle, keys::kMessagingSystem), values::kSystemRabbitMq);
  EXPECT_EQ(string_attribute(*settle, keys::kMessagingOperationType), values::kOperationSettle);
  EXPECT_EQ(string_attribute(*settle, keys::kMessagingOperationName), values::kSettleAck);
  EXPECT_EQ(string_attribute(*settle, keys::kMessagingDestinationName), destination);
  EXPECT_EQ(string_attribute(*settle, keys::kMessagingMessageId), placed_id);

  const auto first = span_with(spans, shipping, process_placed, keys::kAttempt, 0);
  const auto second = span_with(spans, shipping, process_placed, keys::kAttempt, 1);
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  for (const whizbang::SpanData* attempt : {&*first, &*second}) {
    EXPECT_EQ(attempt->kind, whizbang::SpanKind::Consumer);
    EXPECT_EQ(attempt->context.trace_id, trace);
    EXPECT_EQ(attempt->parent_span_id, dispatch_placed[0].context.span_id);
    EXPECT_EQ(string_attribute(*attempt, keys::kMessagingSystem), values::kSystemRabbitMq);
    EXPECT_EQ(string_attribute(*attempt, keys::kMessagingOperationType), values::kOperationProcess);
    EXPECT_EQ(string_attribute(*attempt, keys::kMessagingMessageId), placed_id);
  }
  EXPECT_EQ(first->status, whizbang::SpanStatusCode::Error);
  EXPECT_NE(second->status, whizbang::SpanStatusCode::Error);
  // The retry links to the earlier attempt's span (span ids derived per attempt).
  ASSERT_EQ(second->links.size(), 1u);
  EXPECT_EQ(second->links[0].context.span_id, first->context.span_id);
  EXPECT_EQ(second->links[0].context.trace_id, trace);

  // ShipOrderReceptor under each attempt: failed under the first, fired under the second.
  int failed = 0;
  int fired = 0;
  for (const whizbang::SpanData& span : spans_of(spans, shipping, ship)) {
    if (span.parent_span_id == first->context.span_id) {
      ++failed;
      EXPECT_EQ(span.status, whizbang::SpanStatusCode::Error);
    } else if (span.parent_span_id == second->context.span_id) {
      ++fired;
      EXPECT_EQ(string_attribute(span, keys::kExactlyOnceDecision), values::kDecisionFired);
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(fired, 1);

  // The guardrail: shipping's AuditOrder is skipped, as fired in orders.
  const auto skipped = spans_of(spans, shipping, audit);
  ASSERT_FALSE(skipped.empty());
  for (const whizbang::SpanData& span : skipped) {
    EXPECT_EQ(string_attribute(span, keys::kExactlyOnceDecision),
              values::kDecisionSkippedElsewhere);
    EXPECT_EQ(string_attribute(span, keys::kExactlyOncePriorService), orders);
    EXPECT_EQ(span.context.trace_id, trace);
  }

  // One trace for the order's spans in both processes.
  for (const ReceivedSpan& received : spans) {
    if (received.service != shipping) continue;
    EXPECT_EQ(received.span.context.trace_id, trace) << received.span.name;
  }
}

}  // namespace
