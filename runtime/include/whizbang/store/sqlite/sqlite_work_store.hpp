// SqliteWorkStore: the WorkStore contract on an embedded SQLite file.
//
// One connection per store object (WAL journal, synchronous=FULL unless StoreOptions::durability
// says Normal, busy timeout), prepared
// statements cached for the connection's life, 16-byte BLOB keys in WITHOUT ROWID tables, and
// every call batched in one transaction (or the caller's, see WorkStore). The schema is applied
// as numbered migrations at open, so a fresh file and a file written by an older runtime both
// end current. Several store objects (processes, or instances in one test) may share a file.
//
//   absl::StatusOr<std::unique_ptr<whizbang::SqliteWorkStore>> store =
//       whizbang::SqliteWorkStore::open("orders.db", options);
//   if (!store.ok()) return store.status();   // e.g. "'x.db' is not an SQLite database"
//
// The SQL lives in runtime/src/store/sqlite/ only; a PostgreSQL backend implements the same
// contract with its own SQL (SKIP LOCKED claims) and passes the same contract tests.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class SqliteWorkStore final : public WorkStore, public StoreReader {
 public:
  // Opens or creates the store at `path` (":memory:" for a private in-memory one).
  // DataLoss when the file is not SQLite; FailedPrecondition when it is an SQLite database that
  // is not a Whizbang store, or was written by a newer runtime.
  static absl::StatusOr<std::unique_ptr<SqliteWorkStore>> open(const std::string& path,
                                                               StoreOptions options = {});
  // The schema version this runtime migrates to.
  static int latest_schema_version();

  ~SqliteWorkStore() override;
  SqliteWorkStore(const SqliteWorkStore&) = delete;
  SqliteWorkStore& operator=(const SqliteWorkStore&) = delete;

  // The file's schema version (after migration: latest_schema_version()).
  int schema_version() const;
  const StoreOptions& options() const;

  // What the connection runs with, read back from SQLite ("wal", "full"): for diagnostics.
  struct ConnectionSettings {
    std::string journal_mode;
    std::string synchronous;  // "off", "normal", "full" or "extra"
  };
  absl::StatusOr<ConnectionSettings> connection_settings();

  absl::Status begin() override;
  absl::Status commit() override;
  absl::Status rollback() override;
  bool in_transaction() const override;
  bool writers_take_turns() const override { return true; }
  absl::Status savepoint() override;
  absl::Status release_savepoint() override;
  absl::Status rollback_to_savepoint() override;

  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override;
  absl::StatusOr<bool> remember_dispatch(const MessageId& id) override;
  absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) override;
  bool accepts_deliveries() const override { return true; }
  absl::StatusOr<AcceptedDeliveries> accept_deliveries(std::span<const InboxMessage> messages,
                                                       const Uuid& receiving_service_id) override;
  absl::Status keep_accepted(std::span<const InboxMessage> messages,
                             const Uuid& receiving_service_id) override;
  absl::StatusOr<std::vector<WorkItem>> process_work_batch(
      const WorkBatchRequest& request) override;
  absl::Status complete_work(std::span<const WorkCompletion> completions,
                             std::span<const WorkFailure> failures) override;
  absl::StatusOr<std::vector<MessageId>> renew_leases(std::span<const WorkLease> leases) override;
  absl::Status record_receptor_invocations(
      const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) override;
  absl::StatusOr<std::vector<ReceptorInvocationRecord>> find_receptor_invocations(
      const MessageId& message_id, std::string_view receptor_id) override;
  absl::Status add_perspective_association(std::string_view message_type,
                                           std::string_view perspective) override;

  absl::StatusOr<std::vector<PerspectiveWork>> claim_perspective_work(
      std::size_t max_items) override;
  absl::StatusOr<PerspectiveCompletion> complete_perspective_work(
      std::span<const MessageId> event_work_ids) override;
  absl::Status fail_perspective_work(const MessageId& event_work_id, std::string_view error,
                                     bool dead_letter) override;
  absl::StatusOr<std::vector<LifecycleWork>> claim_lifecycle_work(std::size_t max_items) override;
  absl::StatusOr<bool> renew_lifecycle_work(const MessageId& event_id) override;
  absl::Status complete_lifecycle_work(const MessageId& event_id) override;
  absl::Status fail_lifecycle_work(const MessageId& event_id, std::string_view error,
                                   bool dead_letter) override;
  absl::StatusOr<std::optional<PerspectiveModelRow>> load_perspective_model(
      std::string_view perspective, const Uuid& stream_id) override;
  absl::Status save_perspective_model(std::string_view perspective, const Uuid& stream_id,
                                      std::string_view model_json,
                                      const MessageId& last_event_id) override;

  absl::Status store_detached_work(const DetachedWork& work) override;
  absl::StatusOr<std::vector<DetachedWork>> claim_detached_work(std::size_t max_items) override;
  absl::StatusOr<bool> complete_detached_work(const MessageId& work_id) override;
  absl::Status fail_detached_work(const MessageId& work_id, std::string_view error,
                                  bool dead_letter) override;

  absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) override;
  absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) override;
  absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) override;
  absl::StatusOr<SqlSession*> sql() override;

  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) override;

  // StoreReader
  absl::StatusOr<std::optional<OutboxRow>> find_outbox_row(const MessageId& id) override;
  absl::StatusOr<std::optional<InboxRow>> find_inbox_row(const MessageId& id) override;
  absl::StatusOr<std::vector<PerspectiveEventRow>> perspective_events(
      const Uuid& stream_id) override;

  int add_commit_listener(CommitListener listener) override;
  void remove_commit_listener(int id) override;

  struct Impl;

 private:
  explicit SqliteWorkStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
