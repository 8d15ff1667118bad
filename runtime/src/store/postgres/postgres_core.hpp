// PostgresCore: what every PostgreSQL role shares — the connection, the transaction gate, the
// options, the notification listener — and the helpers several roles call. One per
// PostgresWorkStore; each role object (postgres_<role>.hpp) holds a reference to it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "postgres/connection.hpp"
#include "postgres/notification_listener.hpp"
#include "postgres/postgres_sql_session.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"
#include "store_support.hpp"
#include "transaction_gate.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

struct PostgresCore : store_internal::TransactionBackend {
  PostgresCore(std::unique_ptr<postgres::Connection> db, StoreOptions store_options)
      : connection(std::move(db)),
        options(store_internal::normalize(std::move(store_options))),
        gate(*this, options.metrics),
        sql_session(*connection, gate) {
    gate.set_sql_session(&sql_session);
  }

  // READ COMMITTED: claims lock what they take and serialize where order matters (sql.hpp).
  // BEGIN travels with the transaction's first statements (one round trip fewer).
  absl::Status backend_begin(bool) override {
    if (absl::Status status = connection->reset_if_broken(); !status.ok()) return status;
    connection->begin_with_next_statement();
    return absl::OkStatus();
  }
  // One snapshot for every statement (REPEATABLE READ), and READ ONLY: a write inside fails.
  absl::Status backend_begin_snapshot() override {
    if (absl::Status status = connection->reset_if_broken(); !status.ok()) return status;
    connection->begin_snapshot_with_next_statement();
    return absl::OkStatus();
  }
  // Claims and renewals commit without waiting for the WAL flush (synchronous_commit off for
  // that transaction alone). Undone only by a crash of the server within the WAL writer's delay;
  // the WAL is flushed in order, so any later synced commit puts them on disk first
  // (docs/guide/12-postgresql.md, Configuration, "Durability").
  absl::Status backend_begin_unsynced() override {
    if (absl::Status status = connection->reset_if_broken(); !status.ok()) return status;
    connection->begin_with_next_statement(/*synced=*/options.durability == Durability::Normal);
    return absl::OkStatus();
  }
  // A commit that wrote work tells the other processes' listeners (notification_listener.hpp):
  // the server delivers the notification when, and only if, the commit succeeds.
  absl::Status backend_commit() override {
    const CommitInfo& written = gate.written();
    if (!written.outbox_written && !written.inbox_written && !written.perspectives_written) {
      return connection->finish(true);
    }
    postgres::Pipeline pipeline(*connection);
    postgres::Query& announce = pipeline.add("SELECT pg_notify($1::text, $2::text)");
    announce.bind_text(1, channel);
    announce.bind_text(
        2, postgres::NotificationListener::payload(options.instance.instance_id, written));
    pipeline.add("COMMIT");
    return pipeline.run();
  }
  void backend_rollback() override { (void)connection->finish(false); }
  // Savepoints travel with the next statement (Connection::defer): a group commit's handlings
  // cost no round trip of their own to open and close one.
  absl::Status backend_savepoint(int level) override {
    connection->defer(fmt::format("SAVEPOINT whizbang_{}", level));
    return absl::OkStatus();
  }
  absl::Status backend_release(int level) override {
    connection->defer(fmt::format("RELEASE SAVEPOINT whizbang_{}", level));
    return absl::OkStatus();
  }
  absl::Status backend_rollback_to(int level) override {
    connection->defer(fmt::format("ROLLBACK TO SAVEPOINT whizbang_{}", level));
    connection->defer(fmt::format("RELEASE SAVEPOINT whizbang_{}", level));
    return absl::OkStatus();
  }

  std::int64_t now_micros() const { return to_unix_micros(options.now()); }
  std::int64_t lease_micros() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(options.lease_duration).count();
  }

  // The parts of a work cycle, each as statements added to a pipeline and results read after it
  // ran (so process_work_batch sends them all in one round trip). Called with the gate held.
  using Queries = std::vector<postgres::Query*>;
  // A batch of outbox rows travels as statements of this many rows: the server starts on the
  // first while the rest arrive, and each statement's arrays stay small (postgres_bench: 1000
  // rows as one statement spend a third of their time parsing and allocating its arrays).
  static constexpr std::size_t kOutboxRowsPerStatement = 100;
  // One statement per kOutboxRowsPerStatement rows, in id order (none for no rows).
  Queries add_outbox(postgres::Pipeline& pipeline, std::span<const OutboxMessage> messages);
  std::vector<StoredOutboxRow> read_outbox(std::span<const OutboxMessage> messages,
                                           const Queries& inserts);
  Queries add_inbox(postgres::Pipeline& pipeline, std::span<const InboxMessage> messages,
                    const Uuid& receiving_service_id);
  std::vector<MessageId> read_inbox(std::span<const InboxMessage> messages, const Queries& inserts);
  // Returns the failures' statements (one per failure, in order).
  Queries add_completions(postgres::Pipeline& pipeline, std::span<const WorkCompletion> completions,
                          std::span<const WorkFailure> failures, bool debug_mode);
  void report_failures(std::span<const WorkFailure> failures, const Queries& statements);
  Queries add_renewals(postgres::Pipeline& pipeline, std::span<const WorkLease> leases);
  std::vector<MessageId> read_renewals(std::span<const WorkLease> leases, const Queries& renewals);
  // Takes this table's claim turn (sql::ClaimLock) and leases what is due.
  postgres::Query& add_claim(postgres::Pipeline& pipeline, WorkSource source,
                             const WorkBatchRequest& request, std::int64_t lease_expiry);
  std::vector<WorkItem> read_claim(WorkSource source, postgres::Query& claim,
                                   const std::set<MessageId>& newly_stored,
                                   std::int64_t lease_expiry);
  // Binds ?5 now, ?6 dead letter, ?7 max attempts, ?8 reason of a failing statement.
  void bind_failure_rule(postgres::Query& query, std::int64_t now, bool dead_letter,
                         FailureReason reason,
                         const std::optional<RetryDecision>& retry = std::nullopt) const;
  // Fails the row keyed `id` with one of the keyed failing statements and reports the failure.
  absl::Status fail_keyed(const std::string& sql, std::string_view table, const MessageId& id,
                          std::string_view error, bool dead_letter,
                          const std::optional<RetryDecision>& retry);
  absl::StatusOr<std::vector<WorkItem>> process(const WorkBatchRequest& request);
  // Appends the event rows among `items` to the event store (with their perspective events);
  // quarantines and drops the rows whose envelope is unreadable.
  absl::Status append_events(std::vector<WorkItem>& items);

  // Starts the listener for other processes' commits (the first commit listener needs it).
  void listen_for_other_processes();

  std::unique_ptr<postgres::Connection> connection;
  StoreOptions options;
  store_internal::TransactionGate gate;
  postgres::PostgresSqlSession sql_session;  // the user's SQL (whizbang/store/sql_session.hpp)
  int schema_version = 0;
  // When this instance last wrote its heartbeat (wh_service_instances); micros, store clock.
  std::optional<std::int64_t> last_heartbeat;
  std::string conninfo;
  std::string channel;  // the store's notification channel: one per schema
  std::mutex listener_mutex;
  // Declared last: destroyed (its thread stopped) before the gate it calls.
  std::unique_ptr<postgres::NotificationListener> listener;
};

namespace postgres {

// Every row `sql` (with ?1 = `key`) selects, decoded.
template <class Row, class Decode>
absl::StatusOr<std::vector<Row>> read_rows(Connection& connection, const std::string& sql,
                                           const Uuid& key, Decode decode) {
  Query query(connection, sql);
  query.bind_uuid(1, key);
  return store_internal::collect_rows<Row>(query, decode);
}

template <class Row, class Decode>
absl::StatusOr<std::optional<Row>> read_row(Connection& connection, const std::string& sql,
                                            const Uuid& key, Decode decode) {
  WB_ASSIGN_OR_RETURN(std::vector<Row> rows, read_rows<Row>(connection, sql, key, decode));
  if (rows.empty()) return std::optional<Row>();
  return std::optional<Row>(std::move(rows.front()));
}

}  // namespace postgres

}  // namespace whizbang
