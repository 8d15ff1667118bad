// Which exchange a command travels on (whizbang/transport/command_inboxes.hpp): the names are
// written here by hand, as Whizbang .NET derives them (docs/guide/13-rabbitmq.md, "Command
// inboxes"), not computed by the code under test.
#include <gtest/gtest.h>
#include <whizbang/transport/command_inboxes.hpp>
#include <whizbang/transport/publish_strategy.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_topology.hpp>

namespace whizbang {

// For comparing binding lists (found by argument-dependent lookup from std::vector's ==).
bool operator==(const TransportBinding& a, const TransportBinding& b) {
  return a.address == b.address && a.routing_key == b.routing_key;
}

namespace {

TEST(CommandInboxTests, Namespace_IsTheLowerCasedNamespaceOfTheType) {
  EXPECT_EQ(command_namespace("MyApp.Orders.Commands.PlaceOrder"), "myapp.orders.commands");
  EXPECT_EQ(command_namespace("shop::commands::CreateOrder"), "shop.commands");
  EXPECT_EQ(command_namespace("Shop.Contracts.ShipOrder, Shop.Contracts"), "shop.contracts");
  // A nested type belongs to its outermost type's namespace, as in .NET.
  EXPECT_EQ(command_namespace("Shop.Orders+Place"), "shop");
  EXPECT_EQ(command_namespace("shop::Orders+Lines+Add"), "shop");
  EXPECT_EQ(command_namespace("CreateOrder"), "");
}

TEST(CommandInboxTests, ByDefault_EveryCommandNamespaceHasItsOwnInbox) {
  const TransportDestination to =
      command_destination("MyApp.Orders.Commands.PlaceOrder", {}, "inbox");
  EXPECT_EQ(to.address, "inbox.myapp.orders.commands");
  EXPECT_EQ(to.routing_key, "myapp.orders.commands.placeorder");  // as before
  EXPECT_EQ(to.metadata,
            (std::map<std::string, std::string>{{"Kind", "Command"},
                                                {"Namespace", "myapp.orders.commands"},
                                                {"RequireProvisionedEntity", "true"}}));
  EXPECT_EQ(command_destination("shop::Orders+Place", {}, "inbox").address, "inbox.shop");
}

TEST(CommandInboxTests, FrameworkNamespaces_ShareTheSystemInbox) {
  EXPECT_EQ(
      command_destination("Whizbang.Core.Commands.System.RebuildPerspective", {}, "inbox").address,
      "inbox.whizbang");
  EXPECT_EQ(command_destination("Whizbang.Core.Messaging.Ping", {}, "inbox").address,
            "inbox.whizbang");
  // Only whizbang.core and below.
  EXPECT_EQ(command_destination("Whizbang.Corexyz.Ping", {}, "inbox").address,
            "inbox.whizbang.corexyz");
}

TEST(CommandInboxTests, TypeWithoutNamespace_TravelsOnTheSharedInbox) {
  const TransportDestination to = command_destination("CreateOrder", {}, "inbox");
  EXPECT_EQ(to.address, "inbox");
  EXPECT_TRUE(to.metadata.empty());
}

TEST(CommandInboxTests, SharedOnly_EveryCommandOnTheSharedInbox_AsBefore) {
  const TransportDestination to = command_destination(
      "MyApp.Orders.Commands.PlaceOrder", CommandInboxes::shared_only(), "legacy-inbox");
  EXPECT_EQ(to.address, "legacy-inbox");
  EXPECT_EQ(to.routing_key, "myapp.orders.commands.placeorder");
  EXPECT_TRUE(to.metadata.empty());
}

TEST(CommandInboxTests, ListedNamespaces_OnlyThoseOnTheirOwnInbox_AnySpelling) {
  CommandInboxes inboxes;
  inboxes.namespaces = {"MyApp.Orders.Commands", "shop::billing"};
  EXPECT_EQ(command_destination("MyApp.Orders.Commands.PlaceOrder", inboxes, "inbox").address,
            "inbox.myapp.orders.commands");
  EXPECT_EQ(command_destination("shop::billing::Charge", inboxes, "inbox").address,
            "inbox.shop.billing");
  // Exact namespaces, not their sub-namespaces, as upstream's flip.
  EXPECT_EQ(command_destination("MyApp.Orders.Commands.Admin.Purge", inboxes, "inbox").address,
            "inbox");
  EXPECT_EQ(command_destination("MyApp.Users.Commands.Register", inboxes, "inbox").address,
            "inbox");
}

TEST(CommandInboxTests, Bindings_NamespaceInbox_SharedInboxTooWhenKept) {
  EXPECT_EQ(command_bindings("MyApp.Orders.Commands.PlaceOrder", {}, "inbox"),
            (std::vector<TransportBinding>{
                {"inbox.myapp.orders.commands", "myapp.orders.commands.placeorder"}}));
  CommandInboxes keep;
  keep.keep_shared_inbox = true;
  EXPECT_EQ(command_bindings("MyApp.Orders.Commands.PlaceOrder", keep, "inbox"),
            (std::vector<TransportBinding>{
                {"inbox.myapp.orders.commands", "myapp.orders.commands.placeorder"},
                {"inbox", "myapp.orders.commands.placeorder"}}));
  EXPECT_EQ(
      command_bindings("MyApp.Orders.Commands.PlaceOrder", CommandInboxes::shared_only(), "inbox"),
      (std::vector<TransportBinding>{{"inbox", "myapp.orders.commands.placeorder"}}));
  // The framework inbox carries every service's framework commands: only this type's.
  EXPECT_EQ(command_bindings("Whizbang.Core.Messaging.Ping", {}, "inbox"),
            (std::vector<TransportBinding>{{"inbox.whizbang", "whizbang.core.messaging.ping"}}));
}

TEST(CommandInboxTests, BrokerSubscriptions_TakeNamespaceInboxesWhole_NotTheFrameworkOne) {
  EXPECT_TRUE(takes_whole_namespace_inbox("inbox.myapp.orders.commands"));
  EXPECT_FALSE(takes_whole_namespace_inbox("inbox.whizbang"));
  EXPECT_FALSE(takes_whole_namespace_inbox("inbox"));
  EXPECT_FALSE(takes_whole_namespace_inbox("myapp.orders.events"));
}

TEST(CommandInboxTests, CommandExchanges_AreTheSharedInboxAndTheNamespaceInboxes) {
  EXPECT_TRUE(is_command_exchange("inbox", "inbox"));
  EXPECT_TRUE(is_command_exchange("inbox.myapp.orders.commands", "inbox"));
  EXPECT_TRUE(is_command_exchange("inbox.whizbang", "inbox"));
  EXPECT_FALSE(is_command_exchange("myapp.orders.events", "inbox"));
  EXPECT_FALSE(is_command_exchange("inboxes", "inbox"));
}

TEST(CommandInboxTests, PublishDestination_CommandsToTheirInbox_EventsUnchanged) {
  auto command = publish_destination(
      {.message_type = "MyApp.Orders.Commands.PlaceOrder", .destination = "orders"}, "inbox");
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->address, "inbox.myapp.orders.commands");
  auto event = publish_destination({.message_type = "MyApp.Orders.Events.OrderPlaced",
                                    .destination = "myapp.orders.events",
                                    .is_event = true},
                                   "inbox");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->address, "myapp.orders.events");
  EXPECT_EQ(event->routing_key, "myapp.orders.events.orderplaced");
  EXPECT_TRUE(event->metadata.empty());
  auto legacy = publish_destination(
      {.message_type = "MyApp.Orders.Commands.PlaceOrder", .destination = "orders"}, "inbox",
      CommandInboxes::shared_only());
  ASSERT_TRUE(legacy.has_value());
  EXPECT_EQ(legacy->address, "inbox");
}

// A nested type keeps its '+' in the routing key (.NET's publisher splits the name at its last
// '.': "Shop.Orders+Placed" -> "shop" and "orders+placed") and in EnvelopeType.
TEST(CommandInboxTests, NestedType_KeepsThePlusInRoutingKeyAndEnvelopeType) {
  const TransportDestination to = command_destination("Shop.Billing+Charge", {}, "inbox");
  EXPECT_EQ(to.address, "inbox.shop");
  EXPECT_EQ(to.routing_key, "shop.billing+charge");
  EXPECT_EQ(routing_key_for("shop::Orders+Placed"), "shop.orders+placed");
  EXPECT_EQ(rabbitmq_envelope_type("Shop.Billing+Charge, Shop.Contracts"),
            "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Billing+Charge, Shop.Contracts]], "
            "Whizbang.Core");
  EXPECT_EQ(message_type_from_envelope_type(
                "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Billing+Charge, "
                "Shop.Contracts, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]], "
                "Whizbang.Core"),
            "Shop.Billing+Charge, Shop.Contracts");
}

// The broker names of one service's command inbox, as upstream's provisioner test expects them
// for service "order-service" handling commands of MyApp.Orders.Commands.
TEST(CommandInboxTests, GoldenNames_OfAServiceCommandInbox) {
  const std::string exchange = namespace_inbox(command_namespace("MyApp.Orders.Commands.Place"));
  EXPECT_EQ(exchange, "inbox.myapp.orders.commands");
  const std::string queue = rabbitmq_queue_name("order-service", exchange);
  EXPECT_EQ(queue, "order-service-inbox.myapp.orders.commands");
  EXPECT_EQ(rabbitmq_dead_letter_exchange(exchange), "inbox.myapp.orders.commands.dlx");
  EXPECT_EQ(rabbitmq_dead_letter_queue(queue), "order-service-inbox.myapp.orders.commands.dlq");
}

}  // namespace
}  // namespace whizbang
