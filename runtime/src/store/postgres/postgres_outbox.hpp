// PostgresOutbox: the outbox role (storing emitted messages, keyed dispatches) on PostgreSQL.
#pragma once

#include "postgres/postgres_core.hpp"
#include "whizbang/store/outbox_store.hpp"

namespace whizbang {

class PostgresOutbox final : public OutboxStore {
 public:
  explicit PostgresOutbox(PostgresCore& core) : core_(core) {}

  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override;
  absl::StatusOr<bool> remember_dispatch(const MessageId& id) override;

 private:
  PostgresCore& core_;
};

}  // namespace whizbang
