// Where outbox rows go: the transport topic for a message type.
//
// The default follows the reference convention so topics stay compatible: a simple name starting
// with Product/Inventory/Order goes to products/inventory/orders; otherwise the simple name with
// an "Event" (events) or "Command" (commands) suffix removed, lower-cased. A type shared with
// .NET ([[whizbang::dotnet_type]]) goes to its lower-cased namespace, as Whizbang .NET routes
// it ("Shop.Contracts.OrderPlaced" -> "shop.contracts"). Override it with
// DispatcherOptions::destination.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "whizbang/message/message_type.hpp"

namespace whizbang {

using DestinationResolver = std::function<std::string(const MessageTypeInfo& type)>;

std::string default_destination(const MessageTypeInfo& type);

// Whether a message type belongs to one of this service's owned domains: its namespace (the wire
// name before the last "::" or ".") equals an owned entry or lies under one ("shop" owns
// "shop::orders"), compared case-insensitively.
bool is_owned(const MessageTypeInfo& type, std::span<const std::string> owned_domains);

}  // namespace whizbang
