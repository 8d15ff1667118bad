// PerspectiveRunner: applies an event to every perspective (read model) that handles its type,
// with the perspective lifecycle stages (docs/guide/07-perspectives.md).
//
// For one event, per perspective P (each under LifecycleContext{.perspective = P's name}):
//   PrePerspectiveDetached, PrePerspectiveInline
//   load P's model for the event's stream (a default-constructed model when none is stored),
//   apply the event, save the model (and complete P's perspective event row, in one transaction)
//   PostPerspectiveDetached, PostPerspectiveInline
// then, once every perspective of the event has completed (a WhenAll gate: with an executor the
// perspectives run concurrently and only the last finisher passes it):
//   PostAllPerspectivesDetached, PostAllPerspectivesInline   once per event
//   PostLifecycleDetached, PostLifecycleInline               once per event
// An event no perspective handles skips PostAllPerspectives and goes to PostLifecycle at once. A
// perspective whose apply fails keeps the gate shut: PostAllPerspectives and PostLifecycle fire
// when a retry completes the last perspective (the worker path) — never twice.
//
// The perspective-scoped stages fire N times for N perspectives; the invoker keys their records
// and stage claims by perspective, so the guardrail does not call that a double fire.
//
// Models are stored per (perspective name, stream id); the stream is the envelope's stream id (nil
// when it has none). Applying the event a model last applied is a no-op (a redelivery); when
// every perspective reports that, the gate is not passed again (it passed the first time).
//
// Rewind (the worker path, which knows each event's stream version): a cursor per (perspective,
// stream) keeps the furthest event applied in perspective order (perspective_order.hpp). An event
// behind it (appended late, occurred earlier) makes the stream's model be re-applied from scratch:
// the stream's events of the perspective's types up to this one, in perspective order, through
// the apply thunk alone (this event's own stages still run once). Counted
// (metric_names::kPerspectiveRewinds) and logged (EventId 126).
//
//   auto runner = whizbang::PerspectiveRunner::create(registry, services, store, invoker);
//   lifecycle = whizbang::Lifecycle(invoker, [&](const whizbang::Envelope& e) {
//     return (*runner)->has_perspectives(e);
//   });
//   absl::Status s = (*runner)->process(envelope);   // after the inbox stages
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/lifecycle/executor.hpp"
#include "whizbang/lifecycle/receptor_invoker.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/observability/tracer.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

struct PerspectiveRunnerOptions {
  // Runs the perspectives of one event concurrently; process() still returns only after the
  // gate. Null: one after another on the caller's thread. Must not be the executor process() is
  // called from when that executor has a single thread.
  Executor* executor = nullptr;
  // Registers, at create(), a perspective association with the store for every (event type,
  // perspective) pair, so stored events get perspective events (wh_perspective_events).
  bool register_associations = true;
  std::shared_ptr<spdlog::logger> logger;
  // Counts rewinds (metric_names::kPerspectiveRewinds). Null: not counted.
  std::shared_ptr<Metrics> metrics;
  // A span per apply, under the event's `tp` (docs/guide/18-tracing.md). Null: tracing off.
  std::shared_ptr<Tracer> tracer;
};

// What apply() did for one perspective.
enum class PerspectiveOutcome : std::uint8_t {
  Applied = 0,         // the model was updated and saved
  AlreadyApplied = 1,  // the model's last event is this event: nothing ran
};

class PerspectiveRunner {
 public:
  // Builds every perspective of `registry` from `services` (a missing dependency names the
  // perspective and the type) and registers the associations.
  static absl::StatusOr<std::unique_ptr<PerspectiveRunner>> create(
      const Registry& registry, const ServiceRegistry& services, WorkStore& store,
      ReceptorInvoker& invoker, PerspectiveRunnerOptions options = {});

  // True when some perspective applies the envelope's payload type.
  bool has_perspectives(const Envelope& envelope) const;
  std::span<const PerspectiveInfo* const> perspectives_for(const Envelope& envelope) const;

  // The whole perspective phase of one event, in process: every perspective, then the gate.
  // Returns the first perspective's error (the gate then stays shut).
  absl::Status process(Envelope& envelope, const LifecycleContext& context = {});

  // One perspective for one event, stages included. With `event_work_id` the perspective event
  // row is completed in the transaction that saves the model, and `*gate_opened` tells whether
  // that completion was the event's last (the caller then calls finish()). With the event's
  // `stream_version` (> 0: it is in the event store) the stream's cursor moves, and an event
  // behind it rewinds the model (above).
  absl::StatusOr<PerspectiveOutcome> apply(Envelope& envelope, const PerspectiveInfo& perspective,
                                           const LifecycleContext& context = {},
                                           const MessageId* event_work_id = nullptr,
                                           bool* gate_opened = nullptr,
                                           std::int64_t stream_version = 0);

  // After the last perspective of the event: PostAllPerspectives* (when `had_perspectives`),
  // then PostLifecycle*.
  absl::Status finish(Envelope& envelope, const LifecycleContext& context,
                      bool had_perspectives = true);

  const Registry& registry() const { return registry_; }

 private:
  PerspectiveRunner(const Registry& registry, ReceptorSet perspectives, WorkStore& store,
                    ReceptorInvoker& invoker, PerspectiveRunnerOptions options);

  absl::StatusOr<PerspectiveOutcome> apply_now(Envelope& envelope,
                                               const PerspectiveInfo& perspective,
                                               const LifecycleContext& context,
                                               const MessageId* event_work_id, bool* gate_opened,
                                               std::int64_t stream_version);
  absl::Status run_stages(Envelope& envelope, std::initializer_list<Stage> stages,
                          const LifecycleContext& context);
  // What advance_cursor did: a rewind is counted and logged once its apply committed.
  struct Rewind {
    std::shared_ptr<void> model;  // the stream's model re-applied in order; null: no rewind
    std::string detail;           // for the log line
  };
  // Moves the (perspective, stream) cursor to the event; for an event behind it, rewinds.
  absl::StatusOr<Rewind> advance_cursor(const Envelope& envelope,
                                        const PerspectiveInfo& perspective, void* instance,
                                        const Uuid& stream, std::int64_t stream_version);
  absl::Status process_concurrently(Envelope& envelope, const LifecycleContext& context,
                                    std::span<const PerspectiveInfo* const> perspectives);

  const Registry& registry_;
  ReceptorSet instances_;
  WorkStore& store_;
  ReceptorInvoker& invoker_;
  PerspectiveRunnerOptions options_;
};

}  // namespace whizbang
