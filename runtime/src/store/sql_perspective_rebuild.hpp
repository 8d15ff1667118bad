// SqlPerspectiveRebuild: the perspective-rebuild role (perspective_rebuild_store.hpp) written once
// over a backend's SqlSession, with the backend's statements (sqlite/sql/rebuild_sql.hpp,
// postgres/sql/rebuild_sql.hpp). Every call runs in the caller's transaction, or in one of its own.
#pragma once

#include <string>

#include "whizbang/store/perspective_rebuild_store.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_transactions.hpp"

namespace whizbang {

// A backend's dialect of the rebuild role: how a uuid is bound and read, and its statements.
// `$1`-style placeholders; event types are bound as one JSON array of names.
struct RebuildDialect {
  SqlParam (*uuid)(const Uuid& id) = nullptr;
  absl::StatusOr<Uuid> (*read_uuid)(const SqlRow& row, std::size_t column) = nullptr;
  std::string streams_first;     // $1 types $2 limit
  std::string streams_after;     // $1 types $2 after $3 limit
  std::string count_all;         // $1 types
  std::string count_stream;      // $1 types $2 stream
  std::string read_stream;       // $1 types $2 stream: id, type, data, metadata, version, created
  std::string replayed_work;     // $1 perspective $2 stream $3 version: work id, event id
  std::string lock_event;        // $1 event (empty: writers take turns already)
  std::string delete_work;       // $1 work id
  std::string work_remaining;    // $1 event
  std::string insert_lifecycle;  // $1 event $2 stream $3 instance $4 lease expiry $5 now
  std::string record_shadow;     // $1 shadow $2 stream $3 version
  std::string behind_all;        // $1 shadow $2 types
  std::string behind_stream;     // $1 shadow $2 types $3 stream
  std::string lock_models;       // empty: writers take turns already
  std::string delete_models;     // $1 perspective
  std::string delete_stream_model;  // $1 perspective $2 stream
  std::string rename_models;        // $1 live $2 shadow
  std::string shadow_streams;       // $1 shadow: stream, version
  std::string delete_shadow;        // $1 shadow
  std::string has_models;           // $1 perspective
  std::string request;              // $1 name $2 mode $3 streams $4 now
  std::string claim;                // $1 name $2 instance $3 lease expiry $4 now
  std::string save;                 // $1 name $2 instance $3 status $4 checkpoint $5 done $6 total
                                    // $7 streams done $8 rate $9 error $10 lease expiry $11 now
  std::string select_rebuilds;      // [$1 name]: the columns PerspectiveRebuildRow reads
  std::string select_rebuild;
  std::string select_versions;
  std::string set_version;  // $1 name $2 version $3 now
  std::string lag;
};

class SqlPerspectiveRebuild final : public PerspectiveRebuildStore {
 public:
  SqlPerspectiveRebuild(StoreTransactions& transactions, const StoreOptions& options,
                        const RebuildDialect& dialect)
      : transactions_(transactions), options_(options), dialect_(dialect) {}

  absl::StatusOr<std::vector<Uuid>> perspective_streams(std::span<const std::string> event_types,
                                                        const std::optional<Uuid>& after,
                                                        std::size_t limit) override;
  absl::StatusOr<std::int64_t> count_perspective_events(std::span<const std::string> event_types,
                                                        std::span<const Uuid> streams) override;
  absl::StatusOr<std::vector<StoredEvent>> read_perspective_events(
      std::span<const Uuid> streams, std::span<const std::string> event_types) override;
  absl::Status complete_replayed_events(std::string_view perspective, const Uuid& stream,
                                        std::int64_t version) override;
  absl::Status record_shadow_stream(std::string_view shadow, const Uuid& stream,
                                    std::int64_t version) override;
  absl::StatusOr<std::vector<Uuid>> shadow_streams_behind(std::string_view shadow,
                                                          std::span<const std::string> event_types,
                                                          std::span<const Uuid> streams) override;
  absl::Status lock_perspective_models(std::string_view perspective) override;
  absl::Status swap_shadow_models(std::string_view perspective, std::string_view shadow,
                                  std::span<const Uuid> streams) override;
  absl::Status drop_perspective_models(std::string_view perspective) override;
  absl::StatusOr<bool> has_perspective_models(std::string_view perspective) override;
  absl::StatusOr<bool> request_perspective_rebuild(const PerspectiveRebuildRow& row) override;
  absl::StatusOr<std::optional<PerspectiveRebuildRow>> claim_perspective_rebuild(
      std::span<const std::string> perspectives, std::chrono::milliseconds lease) override;
  absl::StatusOr<bool> save_perspective_rebuild(const PerspectiveRebuildRow& row,
                                                std::chrono::milliseconds lease) override;
  absl::StatusOr<std::vector<PerspectiveRebuildRow>> perspective_rebuilds() override;
  absl::StatusOr<std::vector<PerspectiveVersionRow>> perspective_versions() override;
  absl::Status set_perspective_version(std::string_view perspective,
                                       std::uint32_t version) override;
  absl::StatusOr<std::vector<PerspectiveLag>> perspective_lag() override;

 private:
  // Runs `body` with the session of the caller's transaction, or of one of its own.
  template <class T, class Body>
  absl::StatusOr<T> in_transaction(Body&& body);
  absl::Status complete_replayed(SqlSession& sql, std::string_view perspective, const Uuid& stream,
                                 std::int64_t version);
  absl::StatusOr<PerspectiveRebuildRow> read_row(const SqlRow& row) const;
  std::int64_t now_micros() const;

  StoreTransactions& transactions_;
  const StoreOptions& options_;
  const RebuildDialect& dialect_;
};

// The event types as the JSON array the statements bind.
std::string event_types_json(std::span<const std::string> event_types);

}  // namespace whizbang
