#include "whizbang/lifecycle/receptor_invoker.hpp"

#include <algorithm>
#include <chrono>
#include <span>

#include "absl/strings/match.h"
#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/internal/absl_view.hpp"
#include "whizbang/internal/fast_clock.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/security/security_context.hpp"

namespace whizbang {

namespace {

bool is_post_inbox(Stage stage) {
  return stage == Stage::PostInboxInline || stage == Stage::PostInboxDetached;
}
bool is_pre_outbox(Stage stage) {
  return stage == Stage::PreOutboxInline || stage == Stage::PreOutboxDetached;
}

// Stages whose invocations fan out per perspective: the guardrail does not check them.
bool per_perspective(Stage stage, const LifecycleContext& context) {
  return is_perspective_scoped(stage) ||
         (stage == Stage::ImmediateDetached && !context.perspective.empty());
}

}  // namespace

ReceptorInvoker::ReceptorInvoker(Dispatcher& dispatcher, ReceptorInvokerOptions options)
    : dispatcher_(dispatcher), options_(std::move(options)) {
  if (!dispatcher_.service_name().empty()) own_service_ = dispatcher_.service_name();
  if (!options_.dedup_store) options_.dedup_store = std::make_shared<EnvelopeReceptorDedupStore>();
  dedup_reads_envelope_only_ =
      dynamic_cast<const EnvelopeReceptorDedupStore*>(options_.dedup_store.get()) != nullptr;
}

bool ReceptorInvoker::skipped_by_filters(const Envelope& envelope, Stage stage, bool has_receptors,
                                         InvokeReport& report) const {
  const std::string_view self = dispatcher_.service_name();
  const MessageTypeInfo& type = *envelope.payload.info();
  auto skip = [&](LogEvent event, std::string_view why) {
    log(options_.logger, spdlog::level::debug, event, "{} at {} for {} skipped: {}", type.wire_name,
        to_string(stage), envelope.message_id, why);
    report.filtered_event_id = event.id;
    return true;
  };
  if (!has_receptors) return skip(log_events::kNoReceptorsAtStage, "no receptors at this stage");
  if (is_post_inbox(stage) && !self.empty() &&
      absl::EqualsIgnoreCase(internal::absl_view(envelope.source_service_name()),
                             internal::absl_view(self))) {
    return skip(log_events::kSameServiceInboxSkip, "the message came from this service");
  }
  if (is_pre_outbox(stage) && !options_.owned_domains.empty()) {
    const bool owned = is_owned(type, options_.owned_domains);
    const bool is_event = type.kind == MessageKind::Event;
    if ((owned && !is_event) || (!owned && is_event)) {
      return skip(log_events::kOwnedDomainSkip, owned ? "owned command" : "foreign event");
    }
    if (has_flag(envelope.dispatch_context.mode, DispatchModes::LocalDispatch)) {
      return skip(log_events::kLocalDispatchFlagSkip, "dispatched locally");
    }
  }
  return false;
}

bool ReceptorInvoker::stopped_by_guardrail(const Envelope& envelope, const ReceptorInfo& receptor,
                                           Stage stage, const LifecycleContext& context,
                                           Span& span) const {
  const GuardrailOptions& guardrails = options_.guardrails;
  if (guardrails.tracking == ReceptorInvocationTracking::Off || receptor.idempotent ||
      per_perspective(stage, context)) {
    return false;
  }
  if (dedup_reads_envelope_only_ && envelope.receptor_invocations.empty()) return false;
  // once_across_services asks "anywhere"; a host that does not know its name asks the same.
  const std::optional<std::string_view> service =
      receptor.once_across_services ? std::nullopt : own_service_;
  const std::optional<ReceptorInvocationRecord> prior =
      options_.dedup_store->try_get_prior_invocation(envelope, receptor.id, service);
  if (!prior || guardrails.tracking != ReceptorInvocationTracking::TrackAndEnforce) return false;
  if (span.recording()) {
    // Why the receptor did not run: the question an operator asks after an incident.
    const bool here =
        own_service_ && absl::EqualsIgnoreCase(internal::absl_view(*own_service_),
                                               internal::absl_view(prior->service_name));
    span.set_string(
            span_attributes::kExactlyOnceDecision,
            here ? span_values::kDecisionSkippedHere : span_values::kDecisionSkippedElsewhere)
        .set_string(span_attributes::kExactlyOncePriorService, prior->service_name)
        .set_string(span_attributes::kExactlyOncePriorStage, to_string(prior->stage));
  }
  if (guardrails.on_double_fire == OnDoubleFire::Throw) {
    span.set_error(
        "DuplicateReceptorFireException",
        fmt::format("receptor {} already fired for message {}", receptor.id, envelope.message_id));
    throw DuplicateReceptorFireException(std::string(receptor.id), envelope.message_id, stage,
                                         prior->service_name, prior->stage);
  }
  log(options_.logger, spdlog::level::warn, log_events::kReceptorAlreadyFiredSkip,
      "receptor {} already fired for message {} at {} in service '{}'; skipping {}", receptor.id,
      envelope.message_id, to_string(prior->stage), prior->service_name, to_string(stage));
  return true;
}

const ReceptorInvocationRecord& ReceptorInvoker::append_record(
    Envelope& envelope, const ReceptorInfo& receptor, Stage stage, const LifecycleContext& context,
    TimePoint completed_at, std::chrono::microseconds duration) const {
  // Built in place from its fields in the envelope's inline record storage: no allocation, no
  // zero-filled default record to overwrite, no temporaries to move.
  ReceptorInvocationRecord& record = envelope.receptor_invocations.emplace_back(
      StaticOrOwnedString::Borrowed{receptor.id}, stage, completed_at, duration);
  record.service_name.assign(dispatcher_.service_name());
  if (per_perspective(stage, context)) record.perspective = context.perspective;
  return record;
}

absl::Status ReceptorInvoker::run(const ReceptorInfo& receptor, Stage stage,
                                  const Envelope& envelope, bool emit) {
  log(options_.logger, spdlog::level::debug, log_events::kReceptorFiring,
      "receptor {} firing at {} for {}", receptor.id, to_string(stage), envelope.message_id);
  // The receptor's own handling (handler name = receptor id, ordinals from 0) of this envelope.
  // A receptor's exception comes back from the dispatcher as a status; anything else thrown on
  // the way (a cascade's allocation) is turned into one here, so EventId 17 is logged in every
  // outcome.
  absl::Status status;
  try {
    if (emit) {
      status = dispatcher_.run_receptor(receptor, envelope, receptor.id);
    } else {
      absl::StatusOr<std::size_t> dropped =
          dispatcher_.run_receptor_without_emitting(receptor, envelope);
      status = dropped.status();
      if (dropped.ok() && *dropped > 0) {
        log(options_.logger, spdlog::level::debug, log_events::kReplaySkip,
            "receptor {} at {} for {}: {} returned message(s) dropped (replays never emit)",
            receptor.id, to_string(stage), envelope.message_id, *dropped);
      }
    }
  } catch (...) {
    status = status_from_current_exception(fmt::format("receptor {}", receptor.id));
  }
  if (status.ok()) {
    log(options_.logger, spdlog::level::debug, log_events::kReceptorFired,
        "receptor {} fired at {} for {}", receptor.id, to_string(stage), envelope.message_id);
  } else {
    log(options_.logger, spdlog::level::err, log_events::kReceptorFired,
        "receptor {} failed at {} for {}: {}", receptor.id, to_string(stage), envelope.message_id,
        status.message());
  }
  return status;
}

absl::Status ReceptorInvoker::fire(Envelope& envelope, const ReceptorInfo& receptor, Stage stage,
                                   const LifecycleContext& context) {
  // A replay or rebuild re-runs what already ran live: inline, unrecorded, emitting nothing.
  if (context.mode != ProcessingMode::Live) return run(receptor, stage, envelope, /*emit=*/false);
  const bool track = options_.guardrails.tracking != ReceptorInvocationTracking::Off;

  if (is_detached(stage) && options_.executor != nullptr) {
    // Recorded when scheduled: a later stage in this process must already see it.
    if (track) {
      const ReceptorInvocationRecord& record =
          append_record(envelope, receptor, stage, context, internal::FastClock::now(), {});
      if (auto status = options_.dedup_store->record_invocation(envelope, record); !status.ok()) {
        return status;
      }
    }
    std::optional<MessageId> work_id;
    if (options_.detached_work != nullptr) {
      DetachedWork work;
      work.work_id = MessageId::mint();
      work.message_id = envelope.message_id;
      work.message_type = std::string(envelope.payload.info()->wire_name);
      work.receptor_id = std::string(receptor.id);
      work.stage = stage;
      if (per_perspective(stage, context)) work.perspective = context.perspective;
      work.envelope_json = serialize_envelope(envelope);
      if (absl::Status status = options_.detached_work->store_detached_work(work); !status.ok()) {
        return status;
      }
      work_id = work.work_id;
    }
    std::optional<SecurityContext> security;
    if (const SecurityContext* current = SecurityContext::current()) security = *current;
    std::optional<TraceContext> trace;
    if (const TraceContext* current = TraceScope::current()) trace = *current;
    // The detached run outlives this call: it gets its own copy of the envelope.
    options_.executor->submit(
        [handling = envelope, security, trace, this, &receptor, stage, work_id] {
          ScopedSecurityContext scope(security);
          TraceScope trace_scope(trace ? &*trace : nullptr);
          // run() logs a failure (EventId 17 at Error) and never throws: detached work has no
          // caller to report to, and must not take the executor's thread down.
          if (work_id) {
            (void)run_detached(*work_id, receptor, stage, handling, /*attempts=*/0);
          } else {
            (void)run(receptor, stage, handling);
          }
        });
    return absl::OkStatus();
  }

  if (!track) return run(receptor, stage, envelope);
  // The record's completion time and duration come from one clock, read twice.
  const TimePoint started = internal::FastClock::now();
  if (absl::Status status = run(receptor, stage, envelope); !status.ok()) return status;
  const TimePoint completed = internal::FastClock::now();
  const ReceptorInvocationRecord& record =
      append_record(envelope, receptor, stage, context, completed,
                    internal::FastClock::elapsed(started, completed));
  if (dedup_reads_envelope_only_) return absl::OkStatus();  // the record on the envelope is all
  return options_.dedup_store->record_invocation(envelope, record);
}

absl::Status ReceptorInvoker::run_detached(const MessageId& work_id, const ReceptorInfo& receptor,
                                           Stage stage, const Envelope& envelope, int attempts) {
  WorkStore& store = *options_.detached_work;
  bool owned = false;
  absl::Status status = [&]() -> absl::Status {
    // Waits for the scheduling handling's transaction on this store: the work is there once it
    // committed, and gone when it rolled back.
    Transaction transaction(store);
    if (!transaction.status().ok()) return transaction.status();
    absl::StatusOr<bool> ours = store.complete_detached_work(work_id);
    if (!ours.ok()) return ours.status();
    // Gone (its handling rolled back, or it ran) or taken over by another instance.
    if (!*ours) return absl::OkStatus();
    owned = true;
    if (absl::Status ran = run(receptor, stage, envelope); !ran.ok()) return ran;
    return transaction.commit();
  }();
  // Rolled back, so still kept: retried as the retry policy of the receptor's exception says
  // (the store's backoff by default), dead-lettered at max attempts. (A transaction that could
  // not even begin leaves it leased; its lease lapses.)
  if (!status.ok() && owned) {
    const RetryOutcome outcome =
        options_.retry_policies.outcome(status, attempts, is_permanent(status));
    if (absl::Status failed = store.fail_detached_work(work_id, std::string(status.message()),
                                                       outcome.dead_letter, outcome.retry);
        !failed.ok()) {
      log(options_.logger, spdlog::level::err, log_events::kReceptorFired,
          "detached work {} of receptor {} could not be marked failed: {}", work_id, receptor.id,
          failed.message());
    }
  }
  return status;
}

absl::Status ReceptorInvoker::run_detached_work(const DetachedWork& work) {
  if (options_.detached_work == nullptr) {
    return absl::FailedPreconditionError("run_detached_work: the invoker keeps no detached work");
  }
  const Registry& registry = dispatcher_.registry();
  const ReceptorInfo* receptor = registry.find_receptor(work.receptor_id);
  absl::StatusOr<Envelope> envelope = deserialize_envelope(
      work.envelope_json, [&](std::string_view name) { return registry.find_message(name); });
  if (receptor == nullptr || !envelope.ok()) {
    const std::string why = receptor == nullptr
                                ? fmt::format("no receptor {} in this registry", work.receptor_id)
                                : std::string(envelope.status().message());
    if (absl::Status failed = options_.detached_work->fail_detached_work(work.work_id, why, true);
        !failed.ok()) {
      return failed;
    }
    return absl::FailedPreconditionError(fmt::format("detached work {}: {}", work.work_id, why));
  }
  // What the receptor sees of the caller's security comes from the envelope's scope: an explicit
  // as_system()/run_as() around the original dispatch did not survive the process. Its trace
  // is the envelope's.
  const IncomingTrace trace = read_incoming_trace(*envelope, nullptr);
  const TraceScope trace_scope(trace.context ? &*trace.context : nullptr);
  return run_detached(work.work_id, *receptor, work.stage, *envelope, work.attempts);
}

absl::StatusOr<InvokeReport> ReceptorInvoker::invoke(Envelope& envelope, Stage stage,
                                                     const LifecycleContext& context) {
  InvokeReport report;
  if (!envelope.payload) return report;  // nothing to deliver (a RoutedNone payload)
  const std::span<const ReceptorInfo* const> receptors =
      dispatcher_.receptors_at(*envelope.payload.info(), stage);
  if (skipped_by_filters(envelope, stage, !receptors.empty(), report)) return report;
  const bool live = context.mode == ProcessingMode::Live;
  // A replay re-runs stages the live path claimed: it takes no claim.
  if (live && options_.tracker != nullptr &&
      !options_.tracker->try_claim(envelope.message_id, stage, context.perspective)) {
    log(options_.logger, spdlog::level::debug, log_events::kStageAlreadyClaimed,
        "{} at {} already claimed", envelope.message_id, to_string(stage));
    report.filtered_event_id = log_events::kStageAlreadyClaimed.id;
    return report;
  }
  if (!live) {
    if (std::none_of(receptors.begin(), receptors.end(),
                     [](const ReceptorInfo* r) { return r->always_fire; })) {
      log(options_.logger, spdlog::level::debug, log_events::kReplaySkip,
          "{} at {}: no receptor fires during replay/rebuild", envelope.message_id,
          to_string(stage));
      report.filtered_event_id = log_events::kReplaySkip.id;
      return report;
    }
  }
  for (const ReceptorInfo* receptor : receptors) {
    if (!live && !receptor->always_fire) continue;  // replay/rebuild: AlwaysFire receptors only
    Span span = start_receptor_span(dispatcher_.tracer(), *receptor, envelope.message_id, stage);
    TraceScope trace(span.context());
    if (stopped_by_guardrail(envelope, *receptor, stage, context, span)) {
      report.skipped.emplace_back(receptor->id);
      continue;
    }
    span.set_string(span_attributes::kExactlyOnceDecision, span_values::kDecisionFired);
    if (absl::Status status = fire(envelope, *receptor, stage, context); !status.ok()) {
      mark_failed(span, status);
      return status;
    }
    report.fired.emplace_back(receptor->id);
  }
  return report;
}

}  // namespace whizbang
