// Where outbox rows go: the transport topic for a message type.
//
// The default follows the reference convention so topics stay compatible: a simple name starting
// with Product/Inventory/Order goes to products/inventory/orders; otherwise the simple name with
// an "Event" (events) or "Command" (commands) suffix removed, lower-cased. Override it with
// DispatcherOptions::destination.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "whizbang/registry.hpp"

namespace whizbang {

using DestinationResolver = std::function<std::string(const MessageTypeInfo& type)>;

std::string default_destination(const MessageTypeInfo& type);

}  // namespace whizbang
