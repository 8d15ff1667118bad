#include "whizbang/transport/publish_strategy.hpp"

#include <string>

namespace whizbang {

std::optional<TransportDestination> publish_destination(const OutgoingRoute& route,
                                                        std::string_view shared_inbox_topic,
                                                        const CommandInboxes& inboxes) {
  if (route.destination.empty()) return std::nullopt;
  // A message that is not an event is a command (our rows know their kind); names that say
  // "Command" are commands too, as in the reference.
  const bool command = !route.is_event || detect_wire_kind(route.message_type) == WireKind::Command;
  TransportDestination destination;
  if (command) {
    destination = command_destination(route.message_type, inboxes, shared_inbox_topic);
  } else {
    destination.address = std::string(route.destination);
    destination.routing_key = routing_key_for(route.message_type);
  }
  if (route.stream_id) destination.metadata["StreamId"] = route.stream_id->to_string();
  return destination;
}

}  // namespace whizbang
