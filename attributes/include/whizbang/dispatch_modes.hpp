// DispatchModes: where a cascaded or routed message goes.
//
// Three base flags compose the named modes (values are part of the wire contract):
//   LocalDispatch (1)  in-process receptors
//   Outbox        (2)  outbox row for cross-service transport (the event store is fed from it)
//   EventStore    (4)  outbox row with a null destination: persisted, never transported
//
//   None 0 | LocalNoPersist 1 | Outbox 2 | Both 3 | EventStoreOnly 4 | Local 5
//
// Example:
//   if (has_flag(mode, whizbang::DispatchModes::LocalDispatch)) { ... }
#pragma once

#include <cstdint>
#include <string_view>

namespace whizbang {

enum class DispatchModes : std::uint8_t {
  None = 0,
  LocalDispatch = 1,
  Outbox = 2,
  EventStore = 4,
  // Named combinations.
  LocalNoPersist = 1,  // LocalDispatch
  Both = 3,            // LocalDispatch | Outbox
  EventStoreOnly = 4,  // EventStore
  Local = 5,           // LocalDispatch | EventStore (the default cascade route)
};

constexpr DispatchModes operator|(DispatchModes a, DispatchModes b) {
  return static_cast<DispatchModes>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr DispatchModes operator&(DispatchModes a, DispatchModes b) {
  return static_cast<DispatchModes>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}

// True when every bit of `flag` is set in `mode` (None is never "had").
constexpr bool has_flag(DispatchModes mode, DispatchModes flag) {
  return flag != DispatchModes::None && (mode & flag) == flag;
}

// The canonical name of a mode value. Aliases share a value, so the name is the one the
// cascade page uses for that value (1 -> "LocalNoPersist", 4 -> "EventStoreOnly").
constexpr std::string_view to_string(DispatchModes mode) {
  switch (static_cast<std::uint8_t>(mode)) {
    case 0:
      return "None";
    case 1:
      return "LocalNoPersist";
    case 2:
      return "Outbox";
    case 3:
      return "Both";
    case 4:
      return "EventStoreOnly";
    case 5:
      return "Local";
    default:
      return "Mixed";
  }
}

}  // namespace whizbang
