#include "whizbang/transport/command_inboxes.hpp"

#include "whizbang/message/wire_routing.hpp"

namespace whizbang {
namespace {

constexpr std::string_view kFrameworkNamespace = "whizbang.core";

// The type part of a name that may carry an assembly ("Ns.Type, Assembly").
std::string_view type_part(std::string_view message_type) {
  return message_type.substr(0, message_type.find(','));
}

}  // namespace

bool CommandInboxes::has_own_inbox(std::string_view command_namespace) const {
  if (command_namespace.empty()) return false;
  for (const std::string& listed : namespaces) {
    // Listed as written: any case, "::" or '.'.
    if (listed == "*" || routing_key_for(listed) == command_namespace) return true;
  }
  return false;
}

std::string command_namespace(std::string_view message_type) {
  // routing_key_for lower-cases and joins the segments with '.'; '+' stays inside the type
  // name, so a nested type's namespace is its outermost type's.
  return routing_key_for(wire_namespace(type_part(message_type)));
}

bool is_framework_namespace(std::string_view command_namespace) {
  return command_namespace == kFrameworkNamespace ||
         (command_namespace.size() > kFrameworkNamespace.size() &&
          command_namespace.starts_with(kFrameworkNamespace) &&
          command_namespace[kFrameworkNamespace.size()] == '.');
}

std::string namespace_inbox(std::string_view command_namespace) {
  std::string exchange(kNamespaceInboxPrefix);
  exchange.append(routing_key_for(command_namespace));
  return exchange;
}

namespace {

// The namespace inbox of a command, or nullopt when it travels on the shared inbox.
std::optional<std::string> own_inbox(std::string_view ns, const CommandInboxes& inboxes) {
  if (!inboxes.has_own_inbox(ns)) return std::nullopt;
  // .NET's framework namespaces share one inbox: no service declares inbox.whizbang.core.*.
  if (is_framework_namespace(ns)) return std::string(kSystemInbox);
  return namespace_inbox(ns);
}

}  // namespace

TransportDestination command_destination(std::string_view message_type,
                                         const CommandInboxes& inboxes,
                                         std::string_view shared_inbox_topic) {
  TransportDestination destination;
  destination.routing_key = routing_key_for(type_part(message_type));
  const std::string ns = command_namespace(message_type);
  std::optional<std::string> inbox = own_inbox(ns, inboxes);
  if (!inbox) {
    destination.address = std::string(shared_inbox_topic);
    return destination;
  }
  destination.address = *std::move(inbox);
  destination.metadata[std::string(kNamespaceHeader)] = ns;
  destination.metadata[std::string(kKindHeader)] = "Command";
  destination.metadata[std::string(kRequireProvisionedEntity)] = "true";
  return destination;
}

std::vector<TransportBinding> command_bindings(std::string_view message_type,
                                               const CommandInboxes& inboxes,
                                               std::string_view shared_inbox_topic) {
  const std::string key = routing_key_for(type_part(message_type));
  std::optional<std::string> inbox = own_inbox(command_namespace(message_type), inboxes);
  if (!inbox) return {{std::string(shared_inbox_topic), key}};
  // By this type's key, as on the shared inbox: a transport that lays out a broker binds a
  // namespace inbox whole instead (takes_whole_namespace_inbox).
  std::vector<TransportBinding> bindings = {{*std::move(inbox), key}};
  if (inboxes.keep_shared_inbox) bindings.push_back({std::string(shared_inbox_topic), key});
  return bindings;
}

bool takes_whole_namespace_inbox(std::string_view exchange) {
  return exchange.starts_with(kNamespaceInboxPrefix) && exchange != kSystemInbox;
}

bool is_command_exchange(std::string_view exchange, std::string_view shared_inbox_topic) {
  return exchange == shared_inbox_topic || exchange.starts_with(kNamespaceInboxPrefix);
}

}  // namespace whizbang
