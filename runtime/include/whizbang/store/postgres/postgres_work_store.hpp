// PostgresWorkStore: the WorkStore contract on a PostgreSQL database (libpq), for services that
// run several instances against one database (docs/guide/06-stores-and-workers.md).
//
// One connection per store object; every call runs in one transaction (or the caller's, see
// WorkStore). Claims take rows with FOR UPDATE SKIP LOCKED, so instances never claim a row
// twice; a stream's rows are still handled in order. Every emitted outbox id passes one unique
// index, so a re-emission racing a completion stays a counted no-op. The schema is applied as
// numbered migrations at open, under an advisory lock, in the connection's current schema
// (search_path): several stores can share one database in separate schemas.
//
//   // conninfo: "host=db.internal dbname=orders user=orders" or "postgresql://orders@db/orders";
//   // empty: the WHIZBANG_PG_CONNINFO environment variable.
//   absl::StatusOr<std::unique_ptr<whizbang::PostgresWorkStore>> store =
//       whizbang::PostgresWorkStore::open("postgresql://orders@db.internal/orders", options);
//
// StoreOptions::durability Normal turns synchronous_commit off for the store's connection: a
// server crash can lose the last commits (never duplicate them).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class PostgresWorkStore final : public WorkStore, public StoreReader {
 public:
  // The environment variable `open` reads when given no conninfo.
  static constexpr const char* kConninfoVariable = "WHIZBANG_PG_CONNINFO";

  // Connects and migrates. Unavailable when the server cannot be reached; FailedPrecondition
  // when the schema is not a Whizbang store or was written by a newer runtime; InvalidArgument
  // without a conninfo. Errors name the database and host, never the conninfo (it may hold a
  // password).
  static absl::StatusOr<std::unique_ptr<PostgresWorkStore>> open(std::string conninfo,
                                                                 StoreOptions options = {});
  // The schema version this runtime migrates to.
  static int latest_schema_version();

  ~PostgresWorkStore() override;
  PostgresWorkStore(const PostgresWorkStore&) = delete;
  PostgresWorkStore& operator=(const PostgresWorkStore&) = delete;

  int schema_version() const;
  const StoreOptions& options() const;

  absl::Status begin() override;
  absl::Status commit() override;
  absl::Status rollback() override;
  bool in_transaction() const override;
  absl::Status savepoint() override;
  absl::Status release_savepoint() override;
  absl::Status rollback_to_savepoint() override;

  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override;
  absl::StatusOr<bool> remember_dispatch(const MessageId& id) override;
  absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) override;
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
  explicit PostgresWorkStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
