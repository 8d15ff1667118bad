#include "whizbang/observability/row_quarantine.hpp"

#include "whizbang/observability/logging.hpp"

namespace whizbang {

void log_quarantined_row(const std::shared_ptr<spdlog::logger>& logger, std::string_view table,
                         const MessageId& id, std::string_view reason) {
  log(logger, spdlog::level::warn, log_events::kStoredRowQuarantined,
      "{} row {} quarantined (dead-lettered, not retried): {}", table, id, reason);
}

}  // namespace whizbang
