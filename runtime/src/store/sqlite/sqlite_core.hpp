// SqliteCore: what every SQLite role shares — the connection, the transaction gate, the options —
// and the helpers several roles call (storage, completion, claims). One per SqliteWorkStore; each
// role object (sqlite_<role>.hpp) holds a reference to it.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/sqlite_sql_session.hpp"
#include "sqlite/statement.hpp"
#include "store_support.hpp"
#include "transaction_gate.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

struct SqliteCore : store_internal::TransactionBackend {
  SqliteCore(std::unique_ptr<sqlite::Connection> db, StoreOptions store_options)
      : connection(std::move(db)),
        options(store_internal::normalize(std::move(store_options))),
        gate(*this, options.metrics),
        sql_session(*connection, gate) {
    gate.set_sql_session(&sql_session);
  }

  absl::Status backend_begin(bool) override {
    if (absl::Status status = restore_sync(); !status.ok()) return status;
    return connection->run("BEGIN IMMEDIATE");
  }
  // Deferred: a read takes no write lock, so an idle poll never queues behind (or blocks) the
  // writers of other processes.
  absl::Status backend_begin_read() override { return connection->run("BEGIN"); }
  // Deferred too: in WAL mode the first read fixes the snapshot until the transaction ends.
  // query_only until it ends: a write inside fails, as on PostgreSQL (READ ONLY).
  absl::Status backend_begin_snapshot() override {
    if (absl::Status status = restore_sync(); !status.ok()) return status;
    if (absl::Status status = connection->run("PRAGMA query_only=1"); !status.ok()) return status;
    read_only = true;
    absl::Status status = connection->run("BEGIN");
    if (!status.ok()) (void)restore_sync();
    return status;
  }
  // At FULL durability, claims and renewals commit without the WAL's fsync. synchronous is a
  // connection setting, changeable only outside a transaction: it is lowered before BEGIN and
  // put back after the transaction ends, and a synced transaction never begins while it is
  // still lowered. A later synced commit writes the WAL up to its own frames, these included
  // (docs/guide/06-stores-and-workers.md, "What a commit waits for").
  absl::Status backend_begin_unsynced() override {
    if (options.durability != Durability::Full) return backend_begin(false);
    if (absl::Status status = connection->run("PRAGMA synchronous=NORMAL"); !status.ok()) {
      return status;
    }
    unsynced = true;
    absl::Status status = connection->run("BEGIN IMMEDIATE");
    if (!status.ok()) (void)restore_sync();
    return status;
  }
  absl::Status backend_commit() override {
    absl::Status status = connection->run("COMMIT");
    if (status.ok()) (void)restore_sync();  // a failed COMMIT is followed by backend_rollback()
    return status;
  }
  void backend_rollback() override {
    (void)connection->run("ROLLBACK");
    (void)restore_sync();
  }
  absl::Status restore_sync() {
    if (read_only) {
      if (absl::Status status = connection->run("PRAGMA query_only=0"); !status.ok()) {
        return status;
      }
      read_only = false;
    }
    if (!unsynced) return absl::OkStatus();
    absl::Status status = connection->run("PRAGMA synchronous=FULL");
    if (status.ok()) unsynced = false;
    return status;
  }
  absl::Status backend_savepoint(int level) override {
    return connection->run(fmt::format("SAVEPOINT whizbang_{}", level));
  }
  absl::Status backend_release(int level) override {
    return connection->run(fmt::format("RELEASE whizbang_{}", level));
  }
  // ROLLBACK TO keeps the savepoint open: released at once.
  absl::Status backend_rollback_to(int level) override {
    absl::Status status = connection->run(fmt::format("ROLLBACK TO whizbang_{}", level));
    return status.ok() ? connection->run(fmt::format("RELEASE whizbang_{}", level)) : status;
  }

  std::int64_t now_micros() const { return to_unix_micros(options.now()); }
  std::int64_t lease_micros() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(options.lease_duration).count();
  }
  // Whether this instance's lease on a row, held until `held_until`, was taken just now (within
  // a hundredth of the lease, at most a second): a claim or a renewal that would extend it to
  // `new_expiry` keeps it rather than rewrite the row. A kept lease has at least 99% of its
  // duration left.
  bool lease_taken_just_now(std::optional<std::int64_t> held_until, std::int64_t new_expiry) const {
    const std::int64_t just_now = std::min<std::int64_t>(1'000'000, lease_micros() / 100);
    return held_until && *held_until >= new_expiry - just_now;
  }

  // Each returns a status; called with the gate held (inside a transaction).
  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox(std::span<const OutboxMessage> rows);
  // `leased`: stored leased to this instance, as an outbox row is leased to its writer.
  absl::StatusOr<std::vector<MessageId>> store_inbox(std::span<const InboxMessage> rows,
                                                     const Uuid& receiving_service_id,
                                                     bool leased = false);
  // Records `id` in the permanent inbox deduplication; false when it was seen before.
  absl::StatusOr<bool> first_seen(const MessageId& id, std::int64_t now);
  // accept_deliveries() (work_store.hpp), with the gate held.
  absl::StatusOr<AcceptedDeliveries> accept(std::span<const InboxMessage> messages,
                                            const Uuid& receiving_service_id);
  // One inbox row, as store_inbox() writes it after its deduplication.
  absl::Status insert_inbox_row(const InboxMessage& message, const Uuid& receiving_service_id,
                                std::int64_t now, bool leased);
  // Whether `stream` has an inbox row not yet processed nor dead-lettered.
  absl::StatusOr<bool> inbox_stream_waits(const Uuid& stream);
  absl::Status complete(std::span<const WorkCompletion> completions,
                        std::span<const WorkFailure> failures, bool debug_mode);
  // Binds ?5 now, ?6 dead letter, ?7 max attempts, ?8 reason of a failing statement
  // (sql::failure_columns).
  void bind_failure_rule(sqlite::Use& use, std::int64_t now, bool dead_letter, FailureReason reason,
                         const std::optional<RetryDecision>& retry = std::nullopt) const;
  absl::StatusOr<std::vector<MessageId>> renew(std::span<const WorkLease> leases);
  // Fails the row keyed `id` with one of the keyed failing statements (perspective events,
  // lifecycle completions) and reports the failure.
  absl::Status fail_keyed(const std::string& sql, std::string_view table, const MessageId& id,
                          std::string_view error, bool dead_letter,
                          const std::optional<RetryDecision>& retry);
  absl::StatusOr<std::vector<WorkItem>> process(const WorkBatchRequest& request);
  // True when `sql` (a claimable query: ?1 now, ?2 instance, ?3 limit[, ?4]) finds a row.
  absl::StatusOr<bool> any_claimable(const std::string& sql, std::optional<std::int64_t> fourth);
  // Outside a transaction: true when the claimable query `sql` finds nothing, found by a read
  // alone (an idle poll takes no write lock). Inside one: false (the claim itself decides).
  absl::StatusOr<bool> nothing_claimable(const std::string& sql);
  // An idle poll: a request that reports nothing and could claim nothing, while no heartbeat is
  // due, is answered by reads alone.
  absl::StatusOr<bool> idle_poll(const WorkBatchRequest& request);
  absl::Status claim(WorkSource source, const WorkBatchRequest& request,
                     const std::set<MessageId>& newly_stored, std::vector<WorkItem>& items);
  // Appends `item` to the event store (the caller marks the row stored); false (and the row
  // quarantined) when its envelope is unreadable.
  // The perspectives each event type feeds (wh_message_associations), looked up once per claim.
  using PerspectiveTargets = std::map<std::string, std::vector<std::string>, std::less<>>;
  absl::StatusOr<bool> append_event(WorkItem& item, PerspectiveTargets& targets);
  // The same, from the parts event_parts() cut from the item's envelope already.
  absl::Status append_event_parts(const WorkItem& item, const store_internal::EventParts& parts,
                                  PerspectiveTargets& targets);
  // A claim's event-store phase for one row: appends the event of an event row not stored yet
  // and marks the item EventStored; false when its envelope could not be taken apart (the row
  // is quarantined).
  absl::StatusOr<bool> append_unless_stored(WorkItem& item, PerspectiveTargets& targets);

  std::unique_ptr<sqlite::Connection> connection;
  StoreOptions options;
  store_internal::TransactionGate gate;
  sqlite::SqliteSqlSession sql_session;  // the user's SQL (whizbang/store/sql_session.hpp)
  int schema_version = 0;
  // When this instance last wrote its heartbeat (wh_service_instances); micros, store clock.
  std::optional<std::int64_t> last_heartbeat;
  // synchronous is lowered for an unsynced transaction (backend_begin_unsynced).
  bool unsynced = false;
  // query_only is set for a ReadTransaction (backend_begin_snapshot).
  bool read_only = false;
};

namespace sqlite {

// Every row `sql` (with ?1 = `key`) selects, decoded.
template <class Row, class Decode>
absl::StatusOr<std::vector<Row>> read_rows(Connection& connection, const std::string& sql,
                                           const Uuid& key, Decode decode) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection.prepare(sql));
  Use use(connection, stmt);
  use.bind_uuid(1, key);
  return store_internal::collect_rows<Row>(use, decode);
}

template <class Row, class Decode>
absl::StatusOr<std::optional<Row>> read_row(Connection& connection, const std::string& sql,
                                            const Uuid& key, Decode decode) {
  WB_ASSIGN_OR_RETURN(std::vector<Row> rows, read_rows<Row>(connection, sql, key, decode));
  if (rows.empty()) return std::optional<Row>();
  return std::optional<Row>(std::move(rows.front()));
}

}  // namespace sqlite

}  // namespace whizbang
