// SqliteInbox: the inbox role on SQLite: storing deliveries, and handling a delivered batch without
// the inbox rows of the handlings that succeed (accept_deliveries, keep_accepted).
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/inbox_store.hpp"

namespace whizbang {

class SqliteInbox final : public InboxStore {
 public:
  explicit SqliteInbox(SqliteCore& core) : core_(core) {}

  absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) override;
  absl::StatusOr<AcceptedDeliveries> accept_deliveries(std::span<const InboxMessage> messages,
                                                       const Uuid& receiving_service_id) override;
  absl::Status keep_accepted(std::span<const InboxMessage> messages,
                             const Uuid& receiving_service_id) override;
  bool accepts_deliveries() const override { return true; }

 private:
  SqliteCore& core_;
};

}  // namespace whizbang
