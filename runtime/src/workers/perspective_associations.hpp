// Registers with the store, for every (event type, perspective) pair of `registry`, the
// association that makes it write a perspective event for each appended event of that type
// (wh_message_associations). The runner and PerspectiveSync both need them.
#pragma once

#include "absl/status/status.h"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/perspective_store.hpp"

namespace whizbang {

inline absl::Status register_perspective_associations(PerspectiveStore& store,
                                                      const Registry& registry) {
  for (const PerspectiveInfo& perspective : registry.perspectives()) {
    for (const MessageTypeInfo* event : perspective.events) {
      if (absl::Status status =
              store.add_perspective_association(event->wire_name, perspective.name);
          !status.ok()) {
        return status;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace whizbang
