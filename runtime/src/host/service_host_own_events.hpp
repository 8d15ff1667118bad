// Which event types a host binds, and which of its own events coming back from the broker it may
// drop unstored (HostOptions::own_events; docs/guide/13-rabbitmq.md, "Own events").
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "whizbang/host/service_host.hpp"

namespace whizbang::host_internal {

struct EventBinding {
  // A receptor here fires at a stage of the inbox path, or a perspective here applies it, and it
  // is not one of HostOptions::own_events.local_only.
  bool bind = false;
  // Bound, and an own event of the type does nothing here: each receptor fires only where the
  // inbox path skips this service's own messages (PostInbox) or off it (local, outbox stages),
  // and no perspective applies it.
  bool own_does_nothing = false;
};

EventBinding event_binding(const Registry& registry, const MessageEntry& entry,
                           const OwnEvents& own_events);

// `wire_name` equals a pattern, or starts with a pattern's text before its trailing '*'.
bool matches_any(std::string_view wire_name, std::span<const std::string> patterns);

}  // namespace whizbang::host_internal
