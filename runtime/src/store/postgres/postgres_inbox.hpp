// PostgresInbox: the inbox role (storing deliveries, deduplicated) on PostgreSQL.
#pragma once

#include "postgres/postgres_core.hpp"
#include "whizbang/store/inbox_store.hpp"

namespace whizbang {

class PostgresInbox final : public InboxStore {
 public:
  explicit PostgresInbox(PostgresCore& core) : core_(core) {}

  absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) override;

 private:
  PostgresCore& core_;
};

}  // namespace whizbang
