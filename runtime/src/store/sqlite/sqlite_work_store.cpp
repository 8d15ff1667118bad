#include "whizbang/store/sqlite/sqlite_work_store.hpp"

#include <algorithm>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_store_impl.hpp"

namespace whizbang {

using sqlite::Use;

// ---- Impl: storage and completion ----------------------------------------------------------

absl::StatusOr<std::vector<StoredOutboxRow>> SqliteWorkStore::Impl::store_outbox(
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
    if (message.scheduled_for) use.bind_int(11, store_internal::to_micros(*message.scheduled_for));
    WB_RETURN_IF_ERROR(use.run());
    rows.push_back({message.message_id, message.stream_id, use.changes() == 1});
  }
  gate.note({.outbox_written = true});
  return rows;
}

absl::StatusOr<std::vector<MessageId>> SqliteWorkStore::Impl::store_inbox(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id, bool leased) {
  std::vector<MessageId> stored;
  if (messages.empty()) return stored;
  const std::int64_t now = now_micros();
  for (const InboxMessage& message : messages) {
    WB_ASSIGN_OR_RETURN(bool first, first_seen(message.message_id, now));
    if (!first) continue;  // seen before: permanently deduplicated
    WB_RETURN_IF_ERROR(insert_inbox_row(message, receiving_service_id, now, leased));
    stored.push_back(message.message_id);
  }
  if (!stored.empty()) gate.note({.inbox_written = true});
  return stored;
}

absl::StatusOr<bool> SqliteWorkStore::Impl::first_seen(const MessageId& id, std::int64_t now) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * dedup, connection->prepare(sqlite::sql::kInsertDeduplication));
  Use use(*connection, dedup);
  use.bind_uuid(1, id.uuid());
  use.bind_int(2, now);
  WB_RETURN_IF_ERROR(use.run());
  return use.changes() == 1;
}

absl::Status SqliteWorkStore::Impl::insert_inbox_row(const InboxMessage& message,
                                                     const Uuid& receiving_service_id,
                                                     std::int64_t now, bool leased) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * insert, connection->prepare(sqlite::sql::kInsertInbox));
  Use use(*connection, insert);
  use.bind_uuid(1, message.message_id.uuid());
  use.bind_text(2, std::string_view(message.handler_name));
  use.bind_text(3, std::string_view(message.message_type));
  use.bind_text(4, std::string_view(message.envelope_json));
  use.bind_uuid(5, message.stream_id);
  use.bind_int(6, message.is_event ? 1 : 0);
  use.bind_uuid(
      7, message.source_service_id.is_nil() ? receiving_service_id : message.source_service_id);
  use.bind_int(8, now);
  if (leased) {
    use.bind_uuid(9, options.instance.instance_id);
    use.bind_int(10, now + lease_micros());
  } else {
    use.bind_null(9);
    use.bind_null(10);
  }
  return use.run();
}

absl::Status SqliteWorkStore::Impl::complete(std::span<const WorkCompletion> completions,
                                             std::span<const WorkFailure> failures,
                                             bool debug_mode) {
  const std::int64_t now = now_micros();
  const Uuid& self = options.instance.instance_id;
  // ?1 the row, ?2 this instance (the statement touches the row only while it is ours).
  auto run_on_owned_row = [&](const std::string& sql, const MessageId& id) -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sql));
    Use use(*connection, stmt);
    use.bind_uuid(1, id.uuid());
    use.bind_uuid(2, self);
    return use.run();
  };
  for (const WorkCompletion& completion : completions) {
    const bool deletes =
        !debug_mode && has_status(completion.status, completion.source == WorkSource::Outbox
                                                         ? MessageStatus::Published
                                                         : MessageStatus::EventStored);
    if (deletes) {
      if (completion.source == WorkSource::Outbox) {
        // A published row leaves a tombstone, while it is ours (as the delete goes).
        WB_RETURN_IF_ERROR(
            run_on_owned_row(sqlite::sql::kTombstoneOwnedOutboxRow, completion.message_id));
      }
      WB_RETURN_IF_ERROR(
          run_on_owned_row(sqlite::sql::delete_row(completion.source), completion.message_id));
      continue;
    }
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        connection->prepare(sqlite::sql::complete_row(completion.source)));
    Use use(*connection, stmt);
    use.bind_uuid(1, completion.message_id.uuid());
    use.bind_uuid(2, self);
    use.bind_int(3, static_cast<std::int64_t>(completion.status));
    use.bind_int(4, now);
    WB_RETURN_IF_ERROR(use.run());
  }
  for (const WorkFailure& failure : failures) {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        connection->prepare(sqlite::sql::fail_row(failure.source)));
    Use use(*connection, stmt);
    use.bind_uuid(1, failure.message_id.uuid());
    use.bind_uuid(2, self);
    use.bind_int(3, static_cast<std::int64_t>(failure.status));
    use.bind_text(4, std::string_view(failure.error));
    bind_failure_rule(use, now, failure.dead_letter, failure.reason);
    WB_ASSIGN_OR_RETURN(bool row, use.step());
    if (!row) continue;  // gone, or claimed by another instance: not ours to fail
    store_internal::report_failure(options, {sqlite::sql::table(failure.source), failure.message_id,
                                             use.text(0), static_cast<int>(use.int64(1)),
                                             !use.is_null(2), use.optional_uuid(3), failure.error});
  }
  return absl::OkStatus();
}

void SqliteWorkStore::Impl::bind_failure_rule(sqlite::Use& use, std::int64_t now, bool dead_letter,
                                              FailureReason reason) const {
  use.bind_int(5, now);
  use.bind_int(6, dead_letter ? 1 : 0);
  use.bind_int(7, options.max_attempts);
  use.bind_int(8, static_cast<std::int64_t>(reason));
}

// ---- open and transactions ------------------------------------------------------------------

namespace {

// Switches `connection` to WAL (readers never wait for the writer) and checks that it took: a
// file system without shared memory, or a read-only directory, leaves the journal in another mode
// with other locking, which the store's concurrency does not expect.
absl::Status use_wal(sqlite::Connection& connection) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection.prepare("PRAGMA journal_mode=WAL"));
  Use use(connection, stmt);
  WB_ASSIGN_OR_RETURN(bool row, use.step());
  const std::string mode = row ? use.text(0) : std::string();
  if (mode == "wal" || (mode == "memory" && connection.path() == ":memory:")) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(fmt::format(
      "SQLite store '{}': journal_mode=WAL did not take (the journal mode is '{}'); the store "
      "needs WAL: put the file on a local file system that supports shared memory",
      connection.path(), mode));
}

// How long opening waits for other connections' locks, both in SQLite's busy handler and in
// `prepare_file`'s retries.
constexpr int kBusyTimeoutMillis = 5000;

// Switches the file to WAL, then migrates it (in WAL mode, so readers of a live file never wait
// for a migration). Stores opening one new file at once meet in the switch: each takes a read
// lock to look at the file's header, one of them upgrades to the write lock, and SQLite answers
// the others SQLITE_BUSY at once, without waiting in the busy handler (they hold the read lock
// the upgrade waits for). The way out is to let go of every lock and start again; both steps are
// idempotent, so the retry repeats them whole.
absl::StatusOr<int> prepare_file(sqlite::Connection& connection) {
  const absl::Time deadline = absl::Now() + absl::Milliseconds(kBusyTimeoutMillis);
  absl::Duration pause = absl::Milliseconds(1);
  while (true) {
    absl::Status status = use_wal(connection);
    if (absl::IsDataLoss(status)) {
      return absl::DataLossError(fmt::format("'{}' is not an SQLite database: {}",
                                             connection.path(), std::string(status.message())));
    }
    if (status.ok()) {
      absl::StatusOr<int> version = sqlite::migrate(connection);
      if (version.ok()) return version;
      status = version.status();
    }
    if (!absl::IsUnavailable(status) || absl::Now() + pause > deadline) return status;
    absl::SleepFor(pause);  // the other opener is mid-switch: milliseconds, not a poll loop
    pause = std::min(pause * 2, absl::Milliseconds(50));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteWorkStore>> SqliteWorkStore::open(const std::string& path,
                                                                       StoreOptions options) {
  WB_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Connection> connection,
                      sqlite::Connection::open(path, options.file_mode));
  sqlite3_busy_timeout(connection->db(), kBusyTimeoutMillis);
  WB_ASSIGN_OR_RETURN(int version, prepare_file(*connection));
  // FULL: a commit is on disk when it returns, so what the inbox acknowledged survives a power
  // loss. NORMAL syncs at checkpoints only (StoreOptions::durability).
  WB_RETURN_IF_ERROR(connection->exec(options.durability == Durability::Full
                                          ? "PRAGMA synchronous=FULL"
                                          : "PRAGMA synchronous=NORMAL"));
  auto impl = std::make_unique<Impl>(std::move(connection), std::move(options));
  impl->schema_version = version;
  return std::unique_ptr<SqliteWorkStore>(new SqliteWorkStore(std::move(impl)));
}

int SqliteWorkStore::latest_schema_version() { return sqlite::latest_schema_version(); }

SqliteWorkStore::SqliteWorkStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteWorkStore::~SqliteWorkStore() = default;

int SqliteWorkStore::schema_version() const { return impl_->schema_version; }

absl::StatusOr<SqliteWorkStore::ConnectionSettings> SqliteWorkStore::connection_settings() {
  return impl_->gate.run_read([&]() -> absl::StatusOr<ConnectionSettings> {
    auto read = [&](const std::string& pragma) -> absl::StatusOr<std::string> {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, impl_->connection->prepare(pragma));
      Use use(*impl_->connection, stmt);
      WB_ASSIGN_OR_RETURN(bool row, use.step());
      return row ? use.text(0) : std::string();
    };
    ConnectionSettings settings;
    WB_ASSIGN_OR_RETURN(settings.journal_mode, read("PRAGMA journal_mode"));
    WB_ASSIGN_OR_RETURN(settings.synchronous, read("PRAGMA synchronous"));
    // SQLite answers the level's number (0..3).
    static const std::string kLevels[] = {"off", "normal", "full", "extra"};
    for (int level = 0; level < 4; ++level) {
      if (settings.synchronous == std::to_string(level)) settings.synchronous = kLevels[level];
    }
    return settings;
  });
}
const StoreOptions& SqliteWorkStore::options() const { return impl_->options; }
absl::Status SqliteWorkStore::begin() { return impl_->gate.begin(); }
absl::StatusOr<SqlSession*> SqliteWorkStore::sql() {
  if (absl::Status open = impl_->gate.require_explicit_transaction("WorkStore::sql"); !open.ok()) {
    return open;
  }
  return &impl_->sql_session;
}
absl::Status SqliteWorkStore::commit() { return impl_->gate.commit(); }
absl::Status SqliteWorkStore::rollback() { return impl_->gate.rollback(); }
bool SqliteWorkStore::in_transaction() const { return impl_->gate.in_transaction(); }
absl::Status SqliteWorkStore::savepoint() { return impl_->gate.savepoint(); }
absl::Status SqliteWorkStore::release_savepoint() {
  return impl_->gate.end_savepoint(/*keep=*/true);
}
absl::Status SqliteWorkStore::rollback_to_savepoint() {
  return impl_->gate.end_savepoint(/*keep=*/false);
}

int SqliteWorkStore::add_commit_listener(CommitListener listener) {
  return impl_->gate.add_listener(std::move(listener));
}
void SqliteWorkStore::remove_commit_listener(int id) { impl_->gate.remove_listener(id); }

// ---- operations -----------------------------------------------------------------------------

absl::StatusOr<std::vector<StoredOutboxRow>> SqliteWorkStore::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  absl::StatusOr<std::vector<StoredOutboxRow>> rows =
      impl_->gate.run([&] { return impl_->store_outbox(messages); });
  // Counted after the call so a failed (rolled back) batch counts nothing.
  if (rows.ok()) store_internal::report_deduplicated(impl_->options, messages, *rows);
  return rows;
}

absl::StatusOr<bool> SqliteWorkStore::remember_dispatch(const MessageId& id) {
  return impl_->gate.run([&]() -> absl::StatusOr<bool> {
    absl::StatusOr<sqlite3_stmt*> stmt = impl_->connection->prepare(sqlite::sql::kRememberDispatch);
    if (!stmt.ok()) return stmt.status();
    sqlite::Use use(*impl_->connection, *stmt);
    use.bind_uuid(1, id.uuid());
    use.bind_int(2, store_internal::to_micros(impl_->options.now()));
    if (absl::Status status = use.run(); !status.ok()) return status;
    return use.changes() == 1;
  });
}

absl::StatusOr<std::vector<MessageId>> SqliteWorkStore::store_inbox_messages(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  // Stored inside the caller's transaction (the inbox worker's group for a delivered batch,
  // which claims them in the same transaction): leased here, so that claim keeps the lease
  // rather than rewrite each row for it (docs/guide/06-stores-and-workers.md, "What a claim
  // writes"). Stored on their own: unleased, for any instance's worker.
  const bool leased = impl_->gate.in_transaction();
  return impl_->gate.run(
      [&] { return impl_->store_inbox(messages, receiving_service_id, leased); });
}

absl::StatusOr<std::vector<WorkItem>> SqliteWorkStore::process_work_batch(
    const WorkBatchRequest& request) {
  // Most polls of a quiet service find nothing: answer those with reads, without taking the
  // write lock (or syncing a heartbeat) every poll interval of every worker of every instance.
  if (!impl_->gate.in_transaction()) {
    absl::StatusOr<bool> idle = impl_->gate.run_read([&] { return impl_->idle_poll(request); });
    if (!idle.ok()) return idle.status();
    if (*idle) return std::vector<WorkItem>();
  }
  // A cycle that only claims and renews needs no fsync: lost to a power loss, its rows are
  // claimable again, as when a lease lapses (TransactionBackend::backend_begin_unsynced).
  if (store_internal::claims_only(request)) {
    return impl_->gate.run_unsynced([&] { return impl_->process(request); });
  }
  return impl_->gate.run([&] { return impl_->process(request); });
}

absl::Status SqliteWorkStore::complete_work(std::span<const WorkCompletion> completions,
                                            std::span<const WorkFailure> failures) {
  return impl_->gate.run([&] { return impl_->complete(completions, failures, false); });
}

absl::Status SqliteWorkStore::record_receptor_invocations(
    const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) {
  return impl_->gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        impl_->connection->prepare(sqlite::sql::kInsertInvocation));
    for (const ReceptorInvocationRecord& record : records) {
      Use use(*impl_->connection, stmt);
      use.bind_uuid(1, message_id.uuid());
      use.bind_text(2, record.receptor_id.view());
      use.bind_text(3, std::string_view(record.service_name));
      use.bind_text(4, std::string_view(record.perspective));
      use.bind_int(5, static_cast<std::int64_t>(record.stage));
      use.bind_int(6, store_internal::to_micros(record.completed_at));
      use.bind_int(7, record.duration.count());
      WB_RETURN_IF_ERROR(use.run());
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<ReceptorInvocationRecord>> SqliteWorkStore::find_receptor_invocations(
    const MessageId& message_id, std::string_view receptor_id) {
  return impl_->gate.run_read([&]() -> absl::StatusOr<std::vector<ReceptorInvocationRecord>> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        impl_->connection->prepare(sqlite::sql::kFindInvocations));
    Use use(*impl_->connection, stmt);
    use.bind_uuid(1, message_id.uuid());
    use.bind_text(2, receptor_id);
    return store_internal::collect_rows<ReceptorInvocationRecord>(
        use, store_internal::decode_invocation_record<sqlite::Use>);
  });
}

absl::Status SqliteWorkStore::add_perspective_association(std::string_view message_type,
                                                          std::string_view perspective) {
  return impl_->gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        impl_->connection->prepare(sqlite::sql::kInsertAssociation));
    Use use(*impl_->connection, stmt);
    use.bind_text(1, message_type);
    use.bind_text(2, perspective);
    return use.run();
  });
}

}  // namespace whizbang
