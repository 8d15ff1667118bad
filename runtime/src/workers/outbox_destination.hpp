// Where an outbox row goes: the worker reads the stored row, the transport's publish strategy
// decides (transport/publish_strategy.hpp), so the transport never sees a store row.
#pragma once

#include <optional>
#include <string_view>

#include "whizbang/store/work_item.hpp"
#include "whizbang/transport/publish_strategy.hpp"

namespace whizbang::outbox_drain {

// nullopt for an event-store-only row (no or empty destination).
inline std::optional<TransportDestination> destination_of(const WorkItem& item,
                                                          std::string_view shared_inbox_topic,
                                                          const CommandInboxes& inboxes = {}) {
  const std::string_view destination =
      item.destination ? std::string_view(*item.destination) : std::string_view();
  return publish_destination({item.message_type, destination, item.is_event, item.stream_id},
                             shared_inbox_topic, inboxes);
}

}  // namespace whizbang::outbox_drain
