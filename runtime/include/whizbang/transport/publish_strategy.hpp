// Where an outbox work item goes on the transport (docs/guide/03-routing.md).
//
// - No destination (event-store only): nowhere; the worker completes it as Published.
// - A command (a `commands` namespace segment, or a name ending in Command): the shared inbox
//   topic, so the one service that handles it receives it.
// - Anything else: its stored destination.
// The routing key is the lower-cased "namespace.typename" ("shop::commands::CreateOrder" ->
// "shop.commands.createorder"); a stream id travels as destination metadata "StreamId".
//
//   std::optional<TransportDestination> to = whizbang::publish_destination(item, "inbox");
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "whizbang/store/work_item.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang {

enum class WireKind { Command, Event, Query, Unknown };

// Kind from the type's wire name: namespace segment commands/events/queries (any case), else
// the suffix Command / Query / Event|Created|Updated|Deleted.
WireKind detect_wire_kind(std::string_view message_type);

std::string routing_key_for(std::string_view message_type);

// nullopt for an event-store-only item (no or empty destination).
std::optional<TransportDestination> publish_destination(const WorkItem& item,
                                                        std::string_view shared_inbox_topic);

}  // namespace whizbang
