// Where an outgoing message goes on the transport (docs/guide/03-routing.md).
//
// - No destination (event-store only): nowhere; the outbox worker completes it as Published.
// - A command (not an event, or a wire name the rules in message/wire_routing.hpp call one):
//   its namespace's inbox ("inbox.<namespace>"), or the shared inbox topic for a namespace
//   CommandInboxes routes there (command_inboxes.hpp), so the one service that handles it
//   receives it.
// - Anything else: its destination.
// The routing key is routing_key_for(message type) ("shop::commands::CreateOrder" ->
// "shop.commands.createorder"); a stream id travels as destination metadata "StreamId".
//
//   std::optional<TransportDestination> to = whizbang::publish_destination(
//       {.message_type = "shop::OrderCreated", .destination = "orders", .is_event = true},
//       "inbox");
#pragma once

#include <optional>
#include <string_view>

#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/wire_routing.hpp"
#include "whizbang/transport/command_inboxes.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang {

// What the strategy reads of one outgoing message.
struct OutgoingRoute {
  std::string_view message_type;  // the payload's wire name
  std::string_view destination;   // the address its sender chose; empty: event-store only
  bool is_event = false;
  std::optional<Uuid> stream_id = {};
};

// nullopt for an event-store-only message (empty destination).
std::optional<TransportDestination> publish_destination(const OutgoingRoute& route,
                                                        std::string_view shared_inbox_topic,
                                                        const CommandInboxes& inboxes = {});

}  // namespace whizbang
