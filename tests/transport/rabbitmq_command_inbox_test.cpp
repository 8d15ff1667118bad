// Per-namespace command inboxes on the run's broker (docs/guide/13-rabbitmq.md, "Command
// inboxes"): the topology a handling service declares, checked against names and arguments
// written here by hand as Whizbang .NET provisions them; a C++ command reaching the handling
// service and a queue bound as .NET binds it; a command nobody declared an inbox for failing at
// the sender; and the shared inbox kept in both directions while a fleet migrates.
#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <gtest/gtest.h>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/command_inboxes.hpp>
#include <whizbang/transport/publish_strategy.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>
#include <whizbang/workers/outbox_drain_worker.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "received.hpp"
#include "store/store_test_support.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

using namespace std::chrono_literals;

// A raw client that asks the broker about entities by declaring them again with the expected
// type, flags and arguments: the broker answers 406 PRECONDITION_FAILED when any differs.
class TopologyProbe {
 public:
  explicit TopologyProbe(const RabbitMqOptions& options) : state_(amqp_new_connection()) {
    amqp_socket_t* socket = amqp_tcp_socket_new(state_);
    ok_ = socket != nullptr &&
          amqp_socket_open(socket, options.host.c_str(), options.port) == AMQP_STATUS_OK &&
          amqp_login(state_, options.vhost.c_str(), 0, 131072, 0, AMQP_SASL_METHOD_PLAIN,
                     options.user.c_str(), options.password.c_str())
                  .reply_type == AMQP_RESPONSE_NORMAL;
    if (ok_) ok_ = open_channel();
    EXPECT_TRUE(ok_) << "probe could not connect to " << options.describe();
  }
  ~TopologyProbe() {
    if (ok_) amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(state_);
  }
  TopologyProbe(const TopologyProbe&) = delete;
  TopologyProbe& operator=(const TopologyProbe&) = delete;

  // OK when `exchange` exists durable, not auto-delete, of `type`, without arguments.
  std::string exchange_is(const std::string& exchange, const char* type) {
    amqp_exchange_declare(state_, 1, amqp_cstring_bytes(exchange.c_str()), amqp_cstring_bytes(type),
                          /*passive=*/0, /*durable=*/1,
                          /*auto_delete=*/0, /*internal=*/0, amqp_empty_table);
    return answer();
  }

  bool exchange_exists(const std::string& exchange) {
    amqp_exchange_declare(state_, 1, amqp_cstring_bytes(exchange.c_str()),
                          amqp_cstring_bytes("topic"), /*passive=*/1, 0, 0, 0, amqp_empty_table);
    return answer() == "OK";
  }

  // OK when `queue` exists durable, not exclusive, not auto-delete, with exactly the string
  // arguments given.
  std::string queue_is(const std::string& queue, const std::map<std::string, std::string>& args) {
    std::vector<amqp_table_entry_t> entries;
    for (const auto& [key, value] : args) {
      amqp_table_entry_t entry{};
      entry.key = amqp_cstring_bytes(key.c_str());
      entry.value.kind = AMQP_FIELD_KIND_UTF8;
      entry.value.value.bytes = amqp_cstring_bytes(value.c_str());
      entries.push_back(entry);
    }
    amqp_queue_declare(state_, 1, amqp_cstring_bytes(queue.c_str()), /*passive=*/0,
                       /*durable=*/1, /*exclusive=*/0, /*auto_delete=*/0,
                       amqp_table_t{static_cast<int>(entries.size()), entries.data()});
    return answer();
  }

  std::optional<std::uint32_t> message_count(const std::string& queue) {
    auto* ok = amqp_queue_declare(state_, 1, amqp_cstring_bytes(queue.c_str()), /*passive=*/1, 0, 0,
                                  0, amqp_empty_table);
    if (answer() != "OK" || ok == nullptr) return std::nullopt;
    last_consumer_count_ = ok->consumer_count;
    return ok->message_count;
  }

  // Asks the broker until `queue`'s counts satisfy `done` (consumers, messages), for at most
  // `timeout`: the broker settles a closed consumer and routes a publish on its own time.
  bool wait_until(const std::string& queue,
                  const std::function<bool(std::uint32_t, std::uint32_t)>& done,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    do {
      const std::optional<std::uint32_t> messages = message_count(queue);
      if (messages && done(last_consumer_count_, *messages)) return true;
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < deadline);
    return false;
  }

  void purge(const std::string& queue) {
    amqp_queue_purge(state_, 1, amqp_cstring_bytes(queue.c_str()));
    answer();
  }

  // Publishes a plain body (confirms are not needed: message_count is read after a round trip
  // on the same channel, which the broker handles in order).
  bool publish(const std::string& exchange, const std::string& key) {
    return amqp_basic_publish(state_, 1, amqp_cstring_bytes(exchange.c_str()),
                              amqp_cstring_bytes(key.c_str()), 0, 0, nullptr,
                              amqp_cstring_bytes("{}")) == AMQP_STATUS_OK;
  }

  // The headers of one message taken off `queue`, booleans as "true"/"false".
  std::optional<std::map<std::string, std::string>> headers_of_next(const std::string& queue) {
    amqp_rpc_reply_t reply = amqp_basic_get(state_, 1, amqp_cstring_bytes(queue.c_str()), 1);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL || reply.reply.id != AMQP_BASIC_GET_OK_METHOD) {
      return std::nullopt;
    }
    amqp_message_t message;
    if (amqp_read_message(state_, 1, &message, 0).reply_type != AMQP_RESPONSE_NORMAL) {
      return std::nullopt;
    }
    std::map<std::string, std::string> headers;
    const amqp_basic_properties_t& p = message.properties;
    for (int i = 0; (p._flags & AMQP_BASIC_HEADERS_FLAG) && i < p.headers.num_entries; ++i) {
      const amqp_table_entry_t& entry = p.headers.entries[i];
      const std::string key(static_cast<const char*>(entry.key.bytes), entry.key.len);
      if (entry.value.kind == AMQP_FIELD_KIND_BOOLEAN) {
        headers[key] = entry.value.value.boolean ? "true" : "false";
      } else if (entry.value.kind == AMQP_FIELD_KIND_BYTES ||
                 entry.value.kind == AMQP_FIELD_KIND_UTF8) {
        headers[key] = std::string(static_cast<const char*>(entry.value.value.bytes.bytes),
                                   entry.value.value.bytes.len);
      }
    }
    amqp_destroy_message(&message);
    return headers;
  }

 private:
  bool open_channel() {
    amqp_channel_open(state_, 1);
    return amqp_get_rpc_reply(state_).reply_type == AMQP_RESPONSE_NORMAL;
  }
  // "OK", or the broker's refusal ("406 ...") after which the channel is opened again.
  std::string answer() {
    const amqp_rpc_reply_t reply = amqp_get_rpc_reply(state_);
    if (reply.reply_type == AMQP_RESPONSE_NORMAL) return "OK";
    std::string refusal = "refused";
    if (reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION &&
        reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
      const auto* close = static_cast<const amqp_channel_close_t*>(reply.reply.decoded);
      refusal =
          std::to_string(close->reply_code) + " " +
          std::string(static_cast<const char*>(close->reply_text.bytes), close->reply_text.len);
      amqp_channel_close_ok_t close_ok{};
      amqp_send_method(state_, 1, AMQP_CHANNEL_CLOSE_OK_METHOD, &close_ok);
      open_channel();
    }
    return refusal;
  }

  amqp_connection_state_t state_;
  bool ok_ = false;
  std::uint32_t last_consumer_count_ = 0;
};

class CommandInboxBrokerTests : public ::testing::Test {
 protected:
  CommandInboxBrokerTests() : shared_(unique_name("inbox")), root_(unique_name("myapp")) {
    options_ = test_rabbitmq_options();
    options_.inbox_exchange = shared_;
  }

  // A command type of a namespace of this test's own: "<root>.Orders.Commands.PlaceOrder".
  std::string command_type(std::string_view area = "Orders") const {
    return root_ + "." + std::string(area) + ".Commands.PlaceOrder";
  }
  TransportDestination destination_of(const std::string& type,
                                      const CommandInboxes& inboxes = {}) const {
    return *publish_destination({.message_type = type, .destination = "unused"}, shared_, inboxes);
  }

  std::string shared_;
  std::string root_;
  RabbitMqOptions options_;
};

// Written from the description of .NET's provisioning (upstream's provisioner test expects these
// exact names for service "order-service" and namespace MyApp.Orders.Commands), not from this
// project's name functions.
TEST_F(CommandInboxBrokerTests, HandlingService_DeclaresTheGoldenTopology) {
  RabbitMqTransport transport(options_);
  {
    Received received;
    auto subscription = transport.subscribe(
        "order-service", command_bindings("MyApp.Orders.Commands.PlaceOrder", {}, shared_),
        received.handler());
    ASSERT_TRUE(subscription.ok()) << subscription.status();
  }  // unsubscribed: what reaches the queue now stays there
  TopologyProbe probe(options_);
  EXPECT_EQ(probe.exchange_is("inbox.myapp.orders.commands", "topic"), "OK");
  EXPECT_EQ(probe.exchange_is("inbox.myapp.orders.commands.dlx", "fanout"), "OK");
  EXPECT_EQ(probe.queue_is("order-service-inbox.myapp.orders.commands",
                           {{"x-dead-letter-exchange", "inbox.myapp.orders.commands.dlx"}}),
            "OK");
  EXPECT_EQ(probe.queue_is("order-service-inbox.myapp.orders.commands.dlq", {}), "OK");
  // The probe can tell: another type, or a queue without its dead-letter argument, is refused.
  EXPECT_NE(probe.exchange_is("inbox.myapp.orders.commands", "direct"), "OK");
  EXPECT_NE(probe.queue_is("order-service-inbox.myapp.orders.commands", {}), "OK");

  // The queue is bound with '#' (every key), its dead letters with "" on the fanout exchange.
  const std::string queue = "order-service-inbox.myapp.orders.commands";
  // The subscription's consumer is gone once the broker has processed its connection's close.
  ASSERT_TRUE(probe.wait_until(
      queue, [](std::uint32_t consumers, std::uint32_t) { return consumers == 0; }));
  probe.purge(queue);
  probe.purge(queue + ".dlq");
  ASSERT_TRUE(probe.publish("inbox.myapp.orders.commands", "myapp.orders.commands.placeorder"));
  ASSERT_TRUE(probe.publish("inbox.myapp.orders.commands", "any.key.at.all"));
  ASSERT_TRUE(probe.publish("inbox.myapp.orders.commands.dlx", "whatever"));
  EXPECT_TRUE(
      probe.wait_until(queue, [](std::uint32_t, std::uint32_t messages) { return messages == 2; }))
      << probe.message_count(queue).value_or(0) << " messages";
  EXPECT_TRUE(probe.wait_until(queue + ".dlq",
                               [](std::uint32_t, std::uint32_t messages) { return messages == 1; }))
      << probe.message_count(queue + ".dlq").value_or(0) << " messages";
}

TEST_F(CommandInboxBrokerTests, CppCommand_ReachesTheHandlingService_AndAQueueBoundAsDotNetBinds) {
  const std::string type = command_type();
  const std::string inbox = "inbox." + root_ + ".orders.commands";
  RabbitMqTransport transport(options_);
  Received received;
  auto subscription = transport.subscribe(unique_name("orders"),
                                          command_bindings(type, {}, shared_), received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  // A .NET service handling the same namespace: its queue bound with '#'.
  RawAmqp raw(options_);
  const std::string dotnet_queue = unique_name("OrderService") + "-" + inbox;
  ASSERT_TRUE(raw.declare_bound_queue(dotnet_queue, inbox, "#"));

  const TransportMessage sent = test_message(type, /*is_event=*/false);
  const TransportDestination to = destination_of(type);
  ASSERT_EQ(to.address, inbox);
  ASSERT_TRUE(transport.publish(to, {&sent, 1}).ok());

  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, sent.message_id);
  EXPECT_FALSE(received.messages().at(0).is_event) << "a namespace inbox delivers commands";
  EXPECT_EQ(received.destinations().at(0).address, inbox);

  // Confirmed, so already in every bound queue.
  TopologyProbe probe(options_);
  std::optional<std::map<std::string, std::string>> headers = probe.headers_of_next(dotnet_queue);
  ASSERT_TRUE(headers.has_value()) << "the command did not reach the .NET-style queue";
  EXPECT_EQ((*headers)["Namespace"], root_ + ".orders.commands");
  EXPECT_EQ((*headers)["Kind"], "Command");
  EXPECT_EQ((*headers)["RequireProvisionedEntity"], "true");  // an AMQP boolean, as .NET's
  EXPECT_EQ((*headers)["EnvelopeType"],
            "Whizbang.Core.Observability.MessageEnvelope`1[[" + type + "]], Whizbang.Core");
}

TEST_F(CommandInboxBrokerTests, CommandToANamespaceNobodyHandles_FailsAtTheSender) {
  const std::string type = command_type("Nobody");
  const std::string inbox = "inbox." + root_ + ".nobody.commands";
  options_.unrouted_grace = 0ms;
  RabbitMqTransport transport(options_);
  const TransportMessage sent = test_message(type, /*is_event=*/false);
  const absl::Status status = transport.publish(destination_of(type), {&sent, 1});
  ASSERT_TRUE(absl::IsNotFound(status)) << status;
  EXPECT_NE(status.message().find("no exchange '" + inbox + "'"), std::string::npos) << status;
  EXPECT_NE(status.message().find("stays in the outbox"), std::string::npos) << status;
  EXPECT_FALSE(is_transport_settling(status));
  // The publisher never creates a command inbox: the next attempt fails alike.
  TopologyProbe probe(options_);
  EXPECT_FALSE(probe.exchange_exists(inbox));
  EXPECT_TRUE(absl::IsNotFound(transport.publish(destination_of(type), {&sent, 1})));

  // The connection is kept and publishes what can be delivered.
  EXPECT_TRUE(transport.is_ready());
  const std::string handled = command_type("Orders");
  Received received;
  auto subscription = transport.subscribe(
      unique_name("orders"), command_bindings(handled, {}, shared_), received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  const TransportMessage other = test_message(handled, /*is_event=*/false);
  ASSERT_TRUE(transport.publish(destination_of(handled), {&other, 1}).ok());
  ASSERT_TRUE(received.wait_for(1));

  // Once a service handling the namespace has started, the same command goes through.
  auto late = transport.subscribe(unique_name("late"), command_bindings(type, {}, shared_),
                                  received.handler());
  ASSERT_TRUE(late.ok()) << late.status();
  ASSERT_TRUE(transport.publish(destination_of(type), {&sent, 1}).ok());
  ASSERT_TRUE(received.wait_for(2));
}

// Through the outbox: the row of a command whose namespace inbox nobody declared is kept, failed
// with the reason (retried with backoff, dead-lettered after max_attempts), never taken as sent.
TEST_F(CommandInboxBrokerTests, OutboxCommandNobodyHandles_StaysInTheOutboxWithTheReason) {
  MemoryWorkStore store;
  RabbitMqTransport transport(options_);
  OutboxDrainWorkerOptions drain;
  drain.shared_inbox_topic = shared_;
  OutboxDrainWorker worker(store, transport, store_test::resolve, drain);
  const OutboxMessage command =
      store_test::outbox_message(store_test::ShipOrderCommand{"s-1"}, "shipping");
  ASSERT_TRUE(store.store_outbox_messages({&command, 1}).ok());

  absl::StatusOr<DrainCycleResult> result = worker.run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->published, 0u);
  EXPECT_EQ(result->failed, 1u);
  auto row = *store.find_outbox_row(command.message_id);
  ASSERT_TRUE(row.has_value()) << "the command was taken as sent";
  EXPECT_EQ(row->state.attempts, 1);
  EXPECT_NE(row->state.error.find("no exchange 'inbox.store_test'"), std::string::npos)
      << row->state.error;
  EXPECT_TRUE(transport.is_ready());
}

// A handling service upgraded before its senders keeps listening on the shared inbox: commands
// from old senders (shared inbox) and new ones (its namespace inbox) both reach it.
TEST_F(CommandInboxBrokerTests, KeepSharedInbox_ReceivesFromOldAndNewSenders) {
  const std::string type = command_type();
  RabbitMqTransport transport(options_);
  CommandInboxes keep;
  keep.keep_shared_inbox = true;
  Received received;
  auto subscription = transport.subscribe(
      unique_name("orders"), command_bindings(type, keep, shared_), received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();

  const TransportMessage from_old = test_message(type, false);
  const TransportMessage from_new = test_message(type, false);
  const TransportDestination old_way = destination_of(type, CommandInboxes::shared_only());
  ASSERT_EQ(old_way.address, shared_);
  ASSERT_TRUE(transport.publish(old_way, {&from_old, 1}).ok());
  ASSERT_TRUE(transport.publish(destination_of(type), {&from_new, 1}).ok());

  ASSERT_TRUE(received.wait_for(2));
  std::map<std::string, bool> arrived;  // address -> is_event
  for (std::size_t i = 0; i < 2; ++i) {
    arrived[received.destinations().at(i).address] = received.messages().at(i).is_event;
  }
  EXPECT_EQ(arrived, (std::map<std::string, bool>{{shared_, false},
                                                  {"inbox." + root_ + ".orders.commands", false}}));
}

// A sender upgraded before the (.NET) service that handles a namespace keeps that namespace on
// the shared inbox, where the old service listens with "<namespace>.#".
TEST_F(CommandInboxBrokerTests, NamespaceKeptOnTheSharedInbox_ReachesAnOldDotNetService) {
  const std::string type = command_type();
  RawAmqp raw(options_);
  const std::string old_queue = unique_name("OrderService") + "-" + shared_;
  ASSERT_TRUE(raw.declare_bound_queue(old_queue, shared_, root_ + ".orders.commands.#"));

  CommandInboxes others_only;
  others_only.namespaces = {root_ + ".Billing.Commands"};  // this namespace not listed
  RabbitMqTransport transport(options_);
  const TransportMessage sent = test_message(type, false);
  const TransportDestination to = destination_of(type, others_only);
  EXPECT_EQ(to.address, shared_);
  EXPECT_TRUE(to.metadata.empty()) << "the shared inbox's messages carry what they did before";
  ASSERT_TRUE(transport.publish(to, {&sent, 1}).ok());

  std::optional<RawMessage> got = raw.consume_one(old_queue, 20s);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->properties["message_id"], sent.message_id.to_string());
  EXPECT_EQ(got->routing_key, routing_key_for(type));
}

// What a .NET service publishes for a command today: its namespace inbox, EnvelopeType and the
// Namespace and Kind headers. A C++ subscription takes it as a command of that type.
TEST_F(CommandInboxBrokerTests, DotNetCommandOnItsNamespaceInbox_ArrivesAsACommand) {
  const std::string type = command_type();
  const std::string inbox = "inbox." + root_ + ".orders.commands";
  RabbitMqTransport transport(options_);
  Received received;
  auto subscription = transport.subscribe(unique_name("orders"),
                                          command_bindings(type, {}, shared_), received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();

  const std::string id = MessageId::mint().to_string();
  RawAmqp raw(options_);
  ASSERT_TRUE(
      raw.publish(inbox, routing_key_for(type), R"({"id":")" + id + R"(","p":{}})",
                  {{"content_type", "application/json"}, {"message_id", id}},
                  {{"EnvelopeType", "Whizbang.Core.Observability.MessageEnvelope`1[[" + type +
                                        ", MyApp.Contracts, Version=1.0.0.0, "
                                        "Culture=neutral, PublicKeyToken=null]], "
                                        "Whizbang.Core"},
                   {"Namespace", root_ + ".orders.commands"},
                   {"Kind", "Command"}}));
  ASSERT_TRUE(received.wait_for(1));
  const TransportMessage got = received.messages().at(0);
  EXPECT_EQ(got.message_id.to_string(), id);
  EXPECT_FALSE(got.is_event);
  EXPECT_EQ(got.message_type, type + ", MyApp.Contracts");
}

}  // namespace
}  // namespace whizbang::test
