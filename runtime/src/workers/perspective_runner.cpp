#include "whizbang/workers/perspective_runner.hpp"

#include <condition_variable>
#include <mutex>

#include "fmt/format.h"
#include "perspective_associations.hpp"
#include "perspective_replay.hpp"
#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/security/security_context.hpp"
#include "whizbang/workers/perspective_order.hpp"

namespace whizbang {

absl::StatusOr<std::unique_ptr<PerspectiveRunner>> PerspectiveRunner::create(
    const Registry& registry, const ServiceRegistry& services, WorkStore& store,
    ReceptorInvoker& invoker, PerspectiveRunnerOptions options) {
  absl::StatusOr<ReceptorSet> instances = registry.create_perspectives(services);
  if (!instances.ok()) return instances.status();
  if (options.register_associations) {
    if (absl::Status status = register_perspective_associations(store, registry); !status.ok()) {
      return status;
    }
  }
  return std::unique_ptr<PerspectiveRunner>(
      new PerspectiveRunner(registry, *std::move(instances), store, invoker, std::move(options)));
}

PerspectiveRunner::PerspectiveRunner(const Registry& registry, ReceptorSet perspectives,
                                     WorkStore& store, ReceptorInvoker& invoker,
                                     PerspectiveRunnerOptions options)
    : registry_(registry),
      instances_(std::move(perspectives)),
      store_(store),
      invoker_(invoker),
      options_(std::move(options)) {}

std::span<const PerspectiveInfo* const> PerspectiveRunner::perspectives_for(
    const Envelope& envelope) const {
  if (!envelope.payload) return {};
  return registry_.perspectives_for(*envelope.payload.info());
}

bool PerspectiveRunner::has_perspectives(const Envelope& envelope) const {
  return !perspectives_for(envelope).empty();
}

absl::Status PerspectiveRunner::run_stages(Envelope& envelope, std::initializer_list<Stage> stages,
                                           const LifecycleContext& context) {
  for (Stage stage : stages) {
    // The invoker throws DuplicateReceptorFireException under OnDoubleFire::Throw: a permanent
    // failure of this apply, not an exception through the worker.
    absl::Status status = status_of_call(
        to_string(stage), [&] { return invoker_.invoke(envelope, stage, context).status(); });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<PerspectiveOutcome> PerspectiveRunner::apply(
    Envelope& envelope, const PerspectiveInfo& perspective, const LifecycleContext& context,
    const MessageId* event_work_id, bool* gate_opened, std::int64_t stream_version) {
  if (!options_.tracer) {
    return apply_now(envelope, perspective, context, event_work_id, gate_opened, stream_version);
  }
  // Under the context of the event's creation (its last hop's `tp`); its stages' receptors
  // are this span's children.
  namespace sa = span_attributes;
  const IncomingTrace created = read_incoming_trace(envelope, nullptr);
  Span span(options_.tracer.get(), span_names::kPerspectivePrefix, perspective.name,
            SpanKind::Internal, created.context ? &*created.context : nullptr);
  TraceScope trace(span.context());
  if (span.recording()) {
    span.set_string(sa::kPerspective, perspective.name)
        .set_string(sa::kMessagingMessageId, envelope.message_id.to_string());
    if (envelope.payload) span.set_string(sa::kMessageType, envelope.payload.info()->wire_name);
  }
  absl::StatusOr<PerspectiveOutcome> outcome =
      apply_now(envelope, perspective, context, event_work_id, gate_opened, stream_version);
  if (!outcome.ok()) {
    mark_failed(span, outcome.status());
  } else if (*outcome == PerspectiveOutcome::AlreadyApplied) {
    span.set_bool(sa::kDeduplicated, true);  // this event was in the stored model already
  }
  return outcome;
}

absl::StatusOr<PerspectiveOutcome> PerspectiveRunner::apply_now(
    Envelope& envelope, const PerspectiveInfo& perspective, const LifecycleContext& context,
    const MessageId* event_work_id, bool* gate_opened, std::int64_t stream_version) {
  if (gate_opened != nullptr) *gate_opened = false;
  void* instance = instances_.get(perspective.index);
  if (instance == nullptr || !envelope.payload || !perspective.handles(*envelope.payload.info())) {
    return absl::InvalidArgumentError(fmt::format(
        "perspective {} does not apply {}", perspective.name,
        envelope.payload ? envelope.payload.info()->wire_name : std::string_view("nothing")));
  }
  const Uuid stream = envelope.stream_id().value_or(Uuid());
  LifecycleContext scoped = context;
  scoped.perspective = std::string(perspective.name);

  // Load, apply, save and complete in one transaction: two instances applying events of one
  // stream cannot both start from the same stored model, and the perspective event row is
  // completed with the model that includes its event (or neither happens).
  PerspectiveOutcome outcome = PerspectiveOutcome::Applied;
  Rewind rewind;
  absl::Status applied = [&]() -> absl::Status {
    Transaction tx(store_);
    if (!tx.status().ok()) return tx.status();
    absl::StatusOr<std::optional<PerspectiveModelRow>> stored =
        store_.load_perspective_model(perspective.name, stream);
    if (!stored.ok()) return stored.status();
    if (*stored && (*stored)->last_event_id == envelope.message_id) {
      log(options_.logger, spdlog::level::debug, log_events::kPerspectiveAlreadyApplied,
          "perspective {} already applied {} to stream {}", perspective.name, envelope.message_id,
          stream);
      outcome = PerspectiveOutcome::AlreadyApplied;
    } else {
      if (absl::Status status = run_stages(
              envelope, {Stage::PrePerspectiveDetached, Stage::PrePerspectiveInline}, scoped);
          !status.ok()) {
        return status;
      }
      if (stream_version > 0) {
        absl::StatusOr<Rewind> advanced =
            advance_cursor(envelope, perspective, instance, stream, stream_version);
        if (!advanced.ok()) return advanced.status();
        rewind = *std::move(advanced);
      }
      std::shared_ptr<void> model = rewind.model;
      if (model == nullptr) {
        model = perspective.new_model();
        if (*stored) {
          if (absl::Status status = perspective.model_from_json((*stored)->model_json, model.get());
              !status.ok()) {
            return absl::DataLossError(
                fmt::format("stored model of perspective {} for stream {}: {}", perspective.name,
                            stream, status.message()));
          }
        }
        // Perspectives fail by throwing, like receptors.
        if (absl::Status status = status_of_call(
                fmt::format("perspective {}", perspective.name),
                [&] { return perspective.apply(instance, model.get(), envelope.payload); });
            !status.ok()) {
          return status;
        }
      }
      const std::string json = perspective.model_to_json(model.get());
      if (absl::Status status =
              store_.save_perspective_model(perspective.name, stream, json, envelope.message_id);
          !status.ok()) {
        return status;
      }
    }
    if (event_work_id != nullptr) {
      absl::StatusOr<PerspectiveCompletion> done =
          store_.complete_perspective_work(std::span<const MessageId>(event_work_id, 1));
      if (!done.ok()) return done.status();
      if (done->work_completed.empty()) {
        return absl::AbortedError(fmt::format(
            "perspective event {} of {} was taken over by another instance after this one's "
            "lease lapsed; this apply rolled back",
            *event_work_id, perspective.name));
      }
      if (gate_opened != nullptr) *gate_opened = !done->events_completed.empty();
    }
    return tx.commit();
  }();
  if (!applied.ok()) {
    if (gate_opened != nullptr) *gate_opened = false;  // rolled back with the rest
    return applied;
  }
  if (outcome == PerspectiveOutcome::AlreadyApplied) return outcome;
  if (rewind.model != nullptr) {
    if (options_.metrics) {
      const MetricTag tags[] = {{metric_names::kPerspectiveTag, perspective.name}};
      options_.metrics->add(metric_names::kWorkCoordinatorMeter, metric_names::kPerspectiveRewinds,
                            1, tags);
    }
    log(options_.logger, spdlog::level::warn, log_events::kPerspectiveRewound,
        "perspective {} rewound stream {}: {}", perspective.name, stream, rewind.detail);
  }
  if (absl::Status status = run_stages(
          envelope, {Stage::PostPerspectiveDetached, Stage::PostPerspectiveInline}, scoped);
      !status.ok()) {
    return status;
  }
  return PerspectiveOutcome::Applied;
}

absl::StatusOr<PerspectiveRunner::Rewind> PerspectiveRunner::advance_cursor(
    const Envelope& envelope, const PerspectiveInfo& perspective, void* instance,
    const Uuid& stream, std::int64_t stream_version) {
  absl::StatusOr<std::optional<PerspectiveCursor>> stored =
      store_.load_perspective_cursor(perspective.name, stream);
  if (!stored.ok()) return stored.status();
  const PerspectiveOrderKey key = perspective_order_key(envelope, stream_version);
  PerspectiveCursor cursor;
  if (*stored) cursor = **stored;
  cursor.perspective_name = std::string(perspective.name);
  cursor.stream_id = stream;
  Rewind rewind;  // no model: apply on the stored model as usual
  const bool behind =
      *stored && key < PerspectiveOrderKey{cursor.last_occurred_at_us, cursor.last_stream_version};
  if (behind) {
    // Everything applied so far (the stream's earlier versions) and this event, in their place.
    absl::StatusOr<std::vector<ReplayEvent>> events =
        load_stream_for_perspective(store_, registry_, perspective, stream, stream_version);
    if (!events.ok()) return events.status();
    absl::StatusOr<std::shared_ptr<void>> replayed =
        replay_into_fresh_model(perspective, instance, *events);
    if (!replayed.ok()) return replayed.status();
    rewind.model = *std::move(replayed);
    rewind.detail = fmt::format(
        "event {} (version {}) occurred before event {} (version {}), already applied; "
        "re-applied {} events in order",
        envelope.message_id, stream_version, cursor.last_event_id, cursor.last_stream_version,
        events->size());
    ++cursor.rewind_count;  // the cursor stays where it was: still the furthest event
  } else {
    cursor.last_event_id = envelope.message_id;
    cursor.last_stream_version = key.stream_version;
    cursor.last_occurred_at_us = key.occurred_at_us;
  }
  if (absl::Status status = store_.save_perspective_cursor(cursor); !status.ok()) return status;
  return rewind;
}

absl::Status PerspectiveRunner::finish(Envelope& envelope, const LifecycleContext& context,
                                       bool had_perspectives) {
  LifecycleContext message_scoped = context;
  message_scoped.perspective.clear();
  if (had_perspectives) {
    if (absl::Status status = run_stages(
            envelope, {Stage::PostAllPerspectivesDetached, Stage::PostAllPerspectivesInline},
            message_scoped);
        !status.ok()) {
      return status;
    }
  }
  return run_stages(envelope, {Stage::PostLifecycleDetached, Stage::PostLifecycleInline},
                    message_scoped);
}

absl::Status PerspectiveRunner::process(Envelope& envelope, const LifecycleContext& context) {
  LifecycleContext message_scoped = context;
  message_scoped.perspective.clear();
  const std::span<const PerspectiveInfo* const> perspectives = perspectives_for(envelope);
  if (perspectives.empty()) return finish(envelope, message_scoped, /*had_perspectives=*/false);
  // Concurrently only outside a transaction: inside one, the executor's threads would wait for
  // the store this thread holds while this thread waits for them.
  if (options_.executor != nullptr && perspectives.size() > 1 && !store_.in_transaction()) {
    return process_concurrently(envelope, message_scoped, perspectives);
  }
  // Every perspective runs even when one fails (independent read models); the gate stays shut.
  absl::Status first_error;
  bool any_applied = false;
  for (const PerspectiveInfo* perspective : perspectives) {
    absl::StatusOr<PerspectiveOutcome> outcome = apply(envelope, *perspective, message_scoped);
    if (!outcome.ok() && first_error.ok()) first_error = outcome.status();
    any_applied = any_applied || (outcome.ok() && *outcome == PerspectiveOutcome::Applied);
  }
  if (!first_error.ok()) return first_error;
  if (!any_applied) return absl::OkStatus();  // a redelivery: the gate passed the first time
  return finish(envelope, message_scoped, /*had_perspectives=*/true);
}

absl::Status PerspectiveRunner::process_concurrently(
    Envelope& envelope, const LifecycleContext& context,
    std::span<const PerspectiveInfo* const> perspectives) {
  // Each perspective works on its own copy of the envelope; the last finisher merges their
  // records into `envelope` and alone passes the WhenAll gate.
  struct Gate {
    std::mutex mutex;
    std::condition_variable done;
    std::size_t remaining = 0;
    absl::Status first_error;
    std::vector<ReceptorInvocationRecord> records;
    bool any_applied = false;
    bool finished = false;
    absl::Status result;
  };
  auto gate = std::make_shared<Gate>();
  gate->remaining = perspectives.size();
  const std::size_t known_records = envelope.receptor_invocations.size();
  std::optional<SecurityContext> security;
  if (const SecurityContext* current = SecurityContext::current()) security = *current;

  for (const PerspectiveInfo* perspective : perspectives) {
    options_.executor->submit([this, gate, perspective, copy = envelope, &envelope, context,
                               known_records, security]() mutable {
      ScopedSecurityContext scope(security);
      absl::Status status;
      bool applied = false;
      status = status_of_call(perspective->name, [&] {
        absl::StatusOr<PerspectiveOutcome> outcome = apply(copy, *perspective, context);
        applied = outcome.ok() && *outcome == PerspectiveOutcome::Applied;
        return outcome.status();
      });
      bool last = false;
      {
        std::lock_guard lock(gate->mutex);
        if (!status.ok() && gate->first_error.ok()) gate->first_error = status;
        gate->any_applied = gate->any_applied || applied;
        gate->records.insert(
            gate->records.end(),
            copy.receptor_invocations.begin() + static_cast<std::ptrdiff_t>(known_records),
            copy.receptor_invocations.end());
        last = --gate->remaining == 0;
      }
      if (!last) return;
      absl::Status result = gate->first_error;  // no other finisher writes it any more
      if (result.ok() && gate->any_applied) {
        envelope.receptor_invocations.insert(envelope.receptor_invocations.end(),
                                             gate->records.begin(), gate->records.end());
        result = status_of_call("PostAllPerspectives", [&] {
          return finish(envelope, context, /*had_perspectives=*/true);
        });
      }
      std::lock_guard lock(gate->mutex);
      gate->result = result;
      gate->finished = true;
      gate->done.notify_all();
    });
  }
  std::unique_lock lock(gate->mutex);
  gate->done.wait(lock, [&] { return gate->finished; });
  return gate->result;
}

}  // namespace whizbang
