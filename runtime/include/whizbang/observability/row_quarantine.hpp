// The log line of a quarantined row: a stored row the store or a worker cannot read (a corrupt
// envelope, an unknown type) is dead-lettered at once, not retried, and says so here (EventId 111,
// Warning; docs/guide/11-failures.md). Shared by the stores, which quarantine on claim, and the
// workers, which quarantine on handling.
//
//   log_quarantined_row(logger, "wh_inbox", item.message_id, "unknown message type");
#pragma once

#include <memory>
#include <string_view>

#include "spdlog/logger.h"
#include "whizbang/ids/message_id.hpp"

namespace whizbang {

void log_quarantined_row(const std::shared_ptr<spdlog::logger>& logger, std::string_view table,
                         const MessageId& id, std::string_view reason);

}  // namespace whizbang
