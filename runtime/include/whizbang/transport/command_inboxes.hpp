// Which exchange a command travels on (docs/guide/13-rabbitmq.md, "Command inboxes"), as
// Whizbang .NET routes commands today: each command namespace has an inbox of its own,
// "inbox.<lower-cased namespace>", which the service handling the namespace's commands declares
// and listens on; a publisher never creates it, so a command no service is ready for fails at
// the sender instead of vanishing. The shared inbox ("inbox", every command on one exchange) is
// the earlier layout, kept per namespace for a fleet that migrates one service at a time
// (docs/migrating-to-namespace-inboxes.md).
//
//   command_namespace("shop::orders::Place")     -> "shop.orders"
//   command_namespace("Shop.Orders+Placed")      -> "shop"        (a nested type's namespace)
//   namespace_inbox("shop.orders")               -> "inbox.shop.orders"
//   CommandInboxes{}                             every namespace its own inbox (the default)
//   CommandInboxes::shared_only()                every command on the shared inbox (before)
//   CommandInboxes{.namespaces = {"shop.orders"}, .keep_shared_inbox = true}
//       only shop.orders' commands to inbox.shop.orders; listening on both while senders move
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "whizbang/transport/transport.hpp"

namespace whizbang {

// "inbox.": the prefix of every namespace inbox exchange.
inline constexpr std::string_view kNamespaceInboxPrefix = "inbox.";
// The inbox of .NET's framework commands (namespaces under whizbang.core), which never get
// their own.
inline constexpr std::string_view kSystemInbox = "inbox.whizbang";
// Destination metadata (and so AMQP headers) a namespace inbox command carries, as .NET's do.
inline constexpr std::string_view kNamespaceHeader = "Namespace";
inline constexpr std::string_view kKindHeader = "Kind";
// "true" on a destination the publisher must find declared, never declare itself.
inline constexpr std::string_view kRequireProvisionedEntity = "RequireProvisionedEntity";

struct CommandInboxes {
  // Command namespaces (any case, "shop::orders" or "shop.orders") whose commands travel on
  // their own inbox; "*" is every namespace. The others travel on the shared inbox. Upstream's
  // RouteCommandNamespaceToInbox(ns) / Whizbang:Routing:CommandNamespacesToInbox.
  std::vector<std::string> namespaces = {"*"};
  // Also listen on the shared inbox for the commands this service handles on their own inbox,
  // while services that still send there are upgraded. Upstream's KeepSharedInbox().
  bool keep_shared_inbox = false;

  // The layout before namespace inboxes: every command on the shared inbox, both ways.
  // Upstream's Inbox.UseSharedTopic().
  static CommandInboxes shared_only() { return {{}, false}; }

  // Whether commands of `command_namespace` (as command_namespace() gives it) have their own
  // inbox. A type without a namespace never has.
  bool has_own_inbox(std::string_view command_namespace) const;
};

// The lower-cased, '.'-joined namespace of a command's wire name: everything before its type
// name; a nested type ("Outer+Inner") belongs to the namespace of its outermost type.
std::string command_namespace(std::string_view message_type);

// Whether `command_namespace` is .NET's framework namespace whizbang.core or lies under it.
bool is_framework_namespace(std::string_view command_namespace);

// "inbox.<namespace>" (lower-cased).
std::string namespace_inbox(std::string_view command_namespace);

// Where a command is published. `destination.metadata` holds Namespace, Kind and
// RequireProvisionedEntity for a namespace inbox.
TransportDestination command_destination(std::string_view message_type,
                                         const CommandInboxes& inboxes,
                                         std::string_view shared_inbox_topic);

// What a service that handles commands of `message_type` binds, with the type's routing key:
// its namespace inbox, plus the shared inbox when keep_shared_inbox is set; or the shared inbox
// alone.
std::vector<TransportBinding> command_bindings(std::string_view message_type,
                                               const CommandInboxes& inboxes,
                                               std::string_view shared_inbox_topic);

// Whether a broker subscription to `exchange` takes all of it whatever its bindings' keys: a
// namespace inbox (not the framework one) holds only its namespace's commands, so the exchange
// is the filter, as .NET binds it ('#'), and a command of the namespace the service does not
// know goes to its dead letters instead of being acknowledged unhandled.
bool takes_whole_namespace_inbox(std::string_view exchange);

// Whether what arrives on `exchange` is a command: the shared inbox or a namespace inbox.
bool is_command_exchange(std::string_view exchange, std::string_view shared_inbox_topic);

}  // namespace whizbang
