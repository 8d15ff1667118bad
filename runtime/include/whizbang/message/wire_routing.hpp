// Routing by a message type's wire name: the one home for the rules dispatch (outbox routing),
// the transport (publish strategy) and the RabbitMQ topology share (docs/guide/03-routing.md).
//
// A wire name is "namespace::Type" or "Namespace.Type" ('+' for a nested type stays inside a
// segment). Namespace comparisons are ASCII case-insensitive; routing keys are lower-cased:
//   wire_simple_name("shop::orders::OrderCreated")  -> "OrderCreated"
//   wire_namespace("shop::orders::OrderCreated")    -> "shop::orders"
//   routing_key_for("shop::commands::CreateOrder")  -> "shop.commands.createorder"
//   detect_wire_kind("Shop.Commands.Reserve")       -> WireKind::Command
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace whizbang {

enum class WireKind { Command, Event, Query, Unknown };

// The segments of a wire name, split on "::" and '.' (empty segments dropped).
std::vector<std::string_view> wire_name_segments(std::string_view wire_name);

// The name after the last "::" or "." (the whole name when there is none).
std::string_view wire_simple_name(std::string_view wire_name);

// The part before the last "::" or "." without that separator; empty when there is none.
std::string_view wire_namespace(std::string_view wire_name);

// Whether namespace `ns` is `domain` or lies under it ("shop" holds "shop::orders" and
// "Shop.Orders"), compared case-insensitively.
bool namespace_within(std::string_view ns, std::string_view domain);

// Kind from the type's wire name: namespace segment commands/events/queries (any case), else
// the suffix Command / Query / Event|Created|Updated|Deleted.
WireKind detect_wire_kind(std::string_view message_type);

// The lower-cased segments joined by '.': the routing key a message type travels under.
std::string routing_key_for(std::string_view message_type);

}  // namespace whizbang
