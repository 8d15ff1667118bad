// SqliteOutbox: the outbox role (storing emitted messages, keyed dispatches) on SQLite.
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/outbox_store.hpp"

namespace whizbang {

class SqliteOutbox final : public OutboxStore {
 public:
  explicit SqliteOutbox(SqliteCore& core) : core_(core) {}

  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override;
  absl::StatusOr<bool> remember_dispatch(const MessageId& id) override;

 private:
  SqliteCore& core_;
};

}  // namespace whizbang
