// PerspectiveRebuilder: replays the event store into a perspective's models (docs/perspectives.md,
// "Rebuild"). All streams or selected ones; in place (each stream's model replaced in its own
// batch's transaction) or blue-green (built into a shadow, `<name>#rebuild`, while live events
// keep flowing, then swapped in one transaction that first catches up what arrived meanwhile:
// readers see the old models until the swap commits, then the new ones).
//
// A stream's events are applied in perspective order (perspective_order.hpp: occurred-at, then
// stream version), so a rebuilt model equals the one built live. A rebuild calls the perspective's
// apply directly: no lifecycle stage, no receptor, nothing emitted. It is resumable: each batch of
// streams commits with a checkpoint (the last stream done, in stream-id order) on its
// wh_perspective_rebuilds row, held under a lease, so a crashed rebuild resumes after its last
// batch, and a second instance is refused while the lease is held. The live perspective events a
// rebuild covered are completed with it (their WhenAll gate opens as usual), so nothing is
// applied twice after a swap.
//
//   auto rebuilder = whizbang::PerspectiveRebuilder::create(registry, services, store);
//   auto result = (*rebuilder)->rebuild("shop::OrderSummaryPerspective",
//                                       {.mode = whizbang::RebuildMode::BlueGreen});
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/lifecycle/receptor_invoker.hpp"
#include "whizbang/registry/receptor_set.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/registry/service_registry.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

enum class RebuildMode : std::uint8_t { BlueGreen = 0, InPlace = 1 };

// "blue-green" / "in-place" (the wh_perspective_rebuilds.mode and CLI spelling).
std::string_view to_string(RebuildMode mode);

struct RebuildProgress {
  std::string perspective;
  std::int64_t events_done = 0;
  std::int64_t events_total = 0;
  std::int64_t streams_done = 0;
  double events_per_second = 0;
  // events_done / events_total (1 when there is nothing to replay).
  double ratio() const;
  // The time left at the current rate; nullopt before a rate is known.
  std::optional<std::chrono::seconds> eta() const;
};

struct RebuildOptions {
  RebuildMode mode = RebuildMode::BlueGreen;
  // Empty: every stream with an event of the perspective's types.
  std::vector<Uuid> streams;
  // Streams per transaction (and per checkpoint).
  std::size_t batch_streams = 100;
  // The rebuild's lease on its wh_perspective_rebuilds row, renewed every batch.
  std::chrono::milliseconds lease{30'000};
  // After every committed batch, and once the rebuild is done.
  std::function<void(const RebuildProgress&)> progress;
};

struct RebuildResult {
  std::int64_t events_applied = 0;     // by this call (a resumed rebuild counts the rest only)
  std::int64_t streams_rebuilt = 0;    // by this call
  std::int64_t streams_caught_up = 0;  // replayed again by the swap (events arrived meanwhile)
  bool resumed = false;                // continued a checkpoint a crashed rebuild left
};

class PerspectiveRebuilder {
 public:
  // Builds an instance of every perspective of `registry` from `services`. `stages`: the invoker
  // that fires, during the replay, the perspective-scoped stages' receptors that opted in to
  // rebuilds (idempotent(OnReplay::AlwaysFire)), in ProcessingMode::Rebuild: inline, unrecorded,
  // what they return dropped. Null: no stage fires (docs/perspectives.md, "Rebuild").
  static absl::StatusOr<std::unique_ptr<PerspectiveRebuilder>> create(
      const Registry& registry, const ServiceRegistry& services, WorkStore& store,
      std::shared_ptr<spdlog::logger> logger = nullptr, ReceptorInvoker* stages = nullptr);

  // Requests a rebuild of `perspective` and runs it here: resumes a crashed one of the same
  // perspective (its mode and streams win). Unavailable while another instance holds the lease;
  // NotFound for a perspective this registry does not have.
  absl::StatusOr<RebuildResult> rebuild(std::string_view perspective, RebuildOptions options = {});
  // Claims a requested rebuild of one of this registry's perspectives (one the CLI asked for, or
  // a crashed one whose lease lapsed) and runs it; nullopt when there is none. `options` gives
  // batch size, lease and progress; mode and streams come from the request.
  absl::StatusOr<std::optional<RebuildResult>> run_requested(const RebuildOptions& options = {});

  // The name a blue-green rebuild builds its shadow models under.
  static std::string shadow_name(std::string_view perspective);

  const Registry& registry() const { return registry_; }

 private:
  PerspectiveRebuilder(const Registry& registry, ReceptorSet instances, WorkStore& store,
                       std::shared_ptr<spdlog::logger> logger, ReceptorInvoker* stages);

  absl::StatusOr<RebuildResult> run(PerspectiveRebuildRow row, const RebuildOptions& options);

  const Registry& registry_;
  ReceptorSet instances_;  // by PerspectiveInfo::index
  WorkStore& store_;
  std::shared_ptr<spdlog::logger> logger_;
  ReceptorInvoker* stages_;  // null: no stage fires during a rebuild
};

}  // namespace whizbang
