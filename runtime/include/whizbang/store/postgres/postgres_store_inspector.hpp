// PostgresStoreInspector: a read-only look into a PostgresWorkStore's schema, for tools and tests.
//
// Its session is read-only (default_transaction_read_only): it never creates, migrates or writes
// anything, so pointing it at the wrong database is harmless.
//
//   auto inspector = whizbang::PostgresStoreInspector::open("postgresql://ops@db/orders");
//   if (!inspector.ok()) return inspector.status();  // Unavailable, FailedPrecondition, ...
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "whizbang/store/store_inspector.hpp"

namespace whizbang {

class PostgresStoreInspector final : public StoreInspector {
 public:
  // `conninfo` as PostgresWorkStore::open takes it (empty: WHIZBANG_PG_CONNINFO). Unavailable:
  // the server cannot be reached. FailedPrecondition: the schema holds no Whizbang store.
  static absl::StatusOr<std::unique_ptr<PostgresStoreInspector>> open(std::string conninfo);

  ~PostgresStoreInspector() override;
  PostgresStoreInspector(const PostgresStoreInspector&) = delete;
  PostgresStoreInspector& operator=(const PostgresStoreInspector&) = delete;

  const std::string& location() const override;
  int schema_version() const override;
  int known_schema_version() const override;
  bool keeps_dead_letters() const override { return true; }

  absl::StatusOr<StoreCounts> counts() override;
  absl::StatusOr<std::vector<OutboxRow>> recent_outbox(int limit) override;
  absl::StatusOr<std::vector<InboxRow>> recent_inbox(int limit) override;
  absl::StatusOr<std::vector<StoredEvent>> recent_events(int limit) override;
  absl::StatusOr<std::vector<PerspectiveEventRow>> recent_perspective_events(int limit) override;
  absl::StatusOr<std::vector<StoredReceptorInvocation>> recent_receptor_invocations(
      int limit) override;
  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) override;
  absl::StatusOr<std::vector<DeadLetter>> dead_letters(int limit) override;

  struct Impl;

 private:
  explicit PostgresStoreInspector(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace whizbang
