// PerspectiveRebuildStore: the part of the durable-store contract a perspective rebuild runs on
// (docs/perspectives.md, "Rebuild"): reading the event store by perspective, the shadow models of
// a blue-green rebuild and their swap, the rebuild's lease and progress (wh_perspective_rebuilds),
// the version each perspective's models were built by (wh_perspective_versions), and the lag the
// CLI and /metrics report.
//
// WorkStore extends it. PerspectiveRebuilder (workers/perspective_rebuilder.hpp) is its caller:
//
//   whizbang::Transaction tx(store);
//   auto events = store.read_perspective_events(streams, event_types);   // joins tx
//   ... apply, save_perspective_model(...) ...
//   store.complete_replayed_events("shop::Orders", stream, version);    // joins tx
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/store/store_rows.hpp"

namespace whizbang {

// One wh_perspective_rebuilds row: a rebuild requested (by the CLI or a host), running under a
// lease, or finished.
struct PerspectiveRebuildRow {
  std::string perspective_name;
  std::string mode = "blue-green";   // or "in-place"
  std::string streams;               // stream ids, comma-separated; empty: all streams
  std::string status = "requested";  // requested, running, done, failed
  // The last stream completed, in stream-id order: a resumed rebuild starts after it.
  std::optional<Uuid> checkpoint;
  std::int64_t events_done = 0;
  std::int64_t events_total = 0;
  std::int64_t streams_done = 0;
  double events_per_second = 0;
  std::optional<Uuid> instance_id;
  std::optional<TimePoint> lease_expiry;
  TimePoint requested_at{};
  std::optional<TimePoint> started_at;
  TimePoint updated_at{};
  std::string error;
};

// What `whizbang perspective status` and /metrics report per perspective.
struct PerspectiveLag {
  std::string perspective_name;
  std::int64_t pending_events = 0;  // wh_perspective_events rows not applied yet
  std::optional<TimePoint> oldest_pending;
};

struct PerspectiveVersionRow {
  std::string perspective_name;
  std::uint32_t version = 1;
  TimePoint built_at{};
};

class PerspectiveRebuildStore {
 public:
  virtual ~PerspectiveRebuildStore() = default;

  // ---- the event store, by perspective ----------------------------------------------------
  // Streams holding an event of one of `event_types`, in stream-id order, after `after`.
  virtual absl::StatusOr<std::vector<Uuid>> perspective_streams(
      std::span<const std::string> event_types, const std::optional<Uuid>& after,
      std::size_t limit) = 0;
  // How many events of `event_types` the streams hold (`streams` empty: every stream).
  virtual absl::StatusOr<std::int64_t> count_perspective_events(
      std::span<const std::string> event_types, std::span<const Uuid> streams) = 0;
  // The events of `event_types` in `streams`, by stream then version.
  virtual absl::StatusOr<std::vector<StoredEvent>> read_perspective_events(
      std::span<const Uuid> streams, std::span<const std::string> event_types) = 0;

  // ---- models ------------------------------------------------------------------------------
  // A rebuild replayed `stream` through `version` into `perspective`'s live models: its pending
  // perspective events up to that version are done (deleted, whoever leased them) and an event
  // none of whose perspective events remain gets its lifecycle completion, as
  // complete_perspective_work does (the gate opens once).
  virtual absl::Status complete_replayed_events(std::string_view perspective, const Uuid& stream,
                                                std::int64_t version) = 0;
  // Records that `shadow` holds `stream` replayed through `version` (what a swap catches up).
  virtual absl::Status record_shadow_stream(std::string_view shadow, const Uuid& stream,
                                            std::int64_t version) = 0;
  // Streams (of `streams`, or all when empty) with an event of `event_types` past what `shadow`
  // holds.
  virtual absl::StatusOr<std::vector<Uuid>> shadow_streams_behind(
      std::string_view shadow, std::span<const std::string> event_types,
      std::span<const Uuid> streams) = 0;
  // Inside the caller's transaction, until it ends: no live apply writes a model (PostgreSQL
  // locks wh_perspective_models against writers; SQLite and memory have one writer already).
  virtual absl::Status lock_perspective_models(std::string_view perspective) = 0;
  // The swap: `perspective`'s models (of `streams`, or all) are replaced by `shadow`'s, the
  // pending perspective events the shadow covers are completed (complete_replayed_events), and
  // the shadow's bookkeeping is dropped.
  virtual absl::Status swap_shadow_models(std::string_view perspective, std::string_view shadow,
                                          std::span<const Uuid> streams) = 0;
  // Deletes every model and shadow record of `perspective` (a fresh shadow).
  virtual absl::Status drop_perspective_models(std::string_view perspective) = 0;
  virtual absl::StatusOr<bool> has_perspective_models(std::string_view perspective) = 0;

  // ---- rebuild requests and leases --------------------------------------------------------
  // Inserts `row` as requested unless a rebuild of the perspective is requested or running
  // (false then). A finished one is replaced.
  virtual absl::StatusOr<bool> request_perspective_rebuild(const PerspectiveRebuildRow& row) = 0;
  // Leases to this instance the first rebuild of `perspectives` that is requested, or running
  // with a lapsed lease (or one leased to this instance): a crashed rebuild is resumed.
  virtual absl::StatusOr<std::optional<PerspectiveRebuildRow>> claim_perspective_rebuild(
      std::span<const std::string> perspectives, std::chrono::milliseconds lease) = 0;
  // Writes progress, status and error, and renews the lease; false when the row is no longer
  // leased to this instance (another took it over).
  virtual absl::StatusOr<bool> save_perspective_rebuild(const PerspectiveRebuildRow& row,
                                                        std::chrono::milliseconds lease) = 0;
  virtual absl::StatusOr<std::vector<PerspectiveRebuildRow>> perspective_rebuilds() = 0;

  // ---- versions and lag --------------------------------------------------------------------
  virtual absl::StatusOr<std::vector<PerspectiveVersionRow>> perspective_versions() = 0;
  virtual absl::Status set_perspective_version(std::string_view perspective,
                                               std::uint32_t version) = 0;
  virtual absl::StatusOr<std::vector<PerspectiveLag>> perspective_lag() = 0;
};

}  // namespace whizbang
