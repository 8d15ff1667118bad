// SqliteOutbox: the outbox role (storing emitted messages, keyed dispatches) on SQLite.
#include "sqlite/sqlite_outbox.hpp"

#include <algorithm>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<std::vector<StoredOutboxRow>> SqliteCore::store_outbox(
    std::span<const OutboxMessage> messages) {
  std::vector<StoredOutboxRow> rows;
  rows.reserve(messages.size());
  if (messages.empty()) return rows;
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::kInsertOutbox));
  const std::int64_t now = now_micros();
  const std::int64_t lease_expiry = now + lease_micros();
  const Uuid& instance = options.instance.instance_id;
  std::string scope;
  for (const OutboxMessage& message : messages) {
    Use use(*connection, stmt);
    use.bind_uuid(1, message.message_id.uuid());
    use.bind_text(2, message.destination);
    use.bind_text(3, std::string_view(message.message_type));
    use.bind_text(4, std::string_view(message.envelope_json));
    if (message.scope) {
      scope = store_internal::scope_json(*message.scope);
      use.bind_text(5, std::string_view(scope));
    }
    use.bind_uuid(6, message.stream_id);
    use.bind_int(7, message.is_event ? 1 : 0);
    use.bind_uuid(8, instance);
    use.bind_int(9, lease_expiry);
    use.bind_int(10, now);
    if (message.scheduled_for) use.bind_int(11, to_unix_micros(*message.scheduled_for));
    WB_RETURN_IF_ERROR(use.run());
    rows.push_back({message.message_id, message.stream_id, use.changes() == 1});
  }
  gate.note({.outbox_written = true});
  return rows;
}

absl::StatusOr<std::vector<StoredOutboxRow>> SqliteOutbox::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  absl::StatusOr<std::vector<StoredOutboxRow>> rows =
      core_.gate.run([&] { return core_.store_outbox(messages); });
  // Counted after the call so a failed (rolled back) batch counts nothing.
  if (rows.ok()) store_internal::report_deduplicated(core_.options, messages, *rows);
  return rows;
}

absl::StatusOr<bool> SqliteOutbox::remember_dispatch(const MessageId& id) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    absl::StatusOr<sqlite3_stmt*> stmt = core_.connection->prepare(sqlite::sql::kRememberDispatch);
    if (!stmt.ok()) return stmt.status();
    sqlite::Use use(*core_.connection, *stmt);
    use.bind_uuid(1, id.uuid());
    use.bind_int(2, to_unix_micros(core_.options.now()));
    if (absl::Status status = use.run(); !status.ok()) return status;
    return use.changes() == 1;
  });
}

}  // namespace whizbang
