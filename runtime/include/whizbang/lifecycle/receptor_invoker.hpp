// ReceptorInvoker: fires the receptors registered at a lifecycle stage for one message, with the
// stage filters and the exactly-once guardrail (docs/guide/04-exactly-once.md).
//
// Order of one invoke(envelope, stage):
//   1. receptors registered at `stage` for the payload's type (none: return, EventId 15)
//   2. PostInbox*: skip when the last hop came from this service (EventId 10)
//   3. PreOutbox* with owned domains: skip owned commands and foreign events (EventId 11) and
//      envelopes dispatched with LocalDispatch (EventId 12)
//   4. stage tracker claim per (message, stage[, perspective]) (EventId 13)
//   5. replay/rebuild: only idempotent(OnReplay::AlwaysFire) receptors (EventId 14); they run
//      inline (Detached stages too), with no stage claim and no record, and what they return
//      is dropped: a replay never emits messages
//   6. per receptor: the guardrail asks the dedup store for a prior invocation (skipped for
//      idempotent receptors and perspective-scoped stages); a duplicate is skipped with a
//      Warning (EventId 18) or throws DuplicateReceptorFireException; otherwise EventId 16,
//      the receptor runs and its result cascades, EventId 17 (also when it throws), and a
//      ReceptorInvocationRecord is appended to the envelope.
//
// Inline stages run on the caller's thread. Detached stages run on the executor with a copy of
// the envelope and of the security context; their record is written when they are scheduled, so a
// later stage in this process already sees them. With `detached_work` set, a scheduled Detached
// invocation is also kept in the store (joining the caller's transaction) until it has run, and
// the run deletes it in the transaction that commits what the receptor emitted: a process that
// dies in between leaves it for run_detached_work() (the host's detached worker), instead of
// losing it. A run that fails is retried with backoff and dead-lettered like any row, as
// `retry_policies` say (docs/guide/11-failures.md, "Retry policies").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/dispatch/dispatcher.hpp"
#include "whizbang/exactly_once/guardrails.hpp"
#include "whizbang/exactly_once/lifecycle_stage_tracker.hpp"
#include "whizbang/exactly_once/receptor_dedup_store.hpp"
#include "whizbang/lifecycle/executor.hpp"
#include "whizbang/store/retry_policies.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

enum class ProcessingMode : std::uint8_t {
  Live = 0,
  Replay = 1,
  Rebuild = 2,
};

// Per-call lifecycle facts.
struct LifecycleContext {
  ProcessingMode mode = ProcessingMode::Live;
  // The perspective a perspective-scoped stage (or ImmediateDetached under a perspective) runs for.
  std::string perspective;
};

struct ReceptorInvokerOptions {
  GuardrailOptions guardrails;
  // Null: the envelope store (records carried by the message).
  std::shared_ptr<ReceptorDedupStore> dedup_store;
  // Optional cross-worker claim per (message, stage).
  LifecycleStageTracker* tracker = nullptr;
  // Namespaces (wire-name prefixes, "shop" or "shop::orders") this service owns; empty disables
  // the PreOutbox ownership filters.
  std::vector<std::string> owned_domains;
  // Where Detached stages run. Null: inline on the caller's thread.
  Executor* executor = nullptr;
  // Where Detached stages scheduled on the executor are kept until they ran (see above). Null:
  // not kept, and a crash between scheduling and running loses them. (Without an executor,
  // Detached stages run inline in the caller's transaction, and there is nothing to keep.)
  WorkStore* detached_work = nullptr;
  std::shared_ptr<spdlog::logger> logger;
  // Which retry policy a failed run of kept detached work gets, by the receptor's exception type
  // (whizbang/store/retry_policies.hpp); default: the store's schedule.
  RetryPolicies retry_policies{};
};

// What one invoke() did, for callers that report or test it. The ids are the registry's own
// (ReceptorInfo::id, static storage): reporting copies no text.
struct InvokeReport {
  std::vector<std::string_view> fired;    // receptors that ran (or were scheduled)
  std::vector<std::string_view> skipped;  // receptors the guardrail stopped
  int filtered_event_id = 0;  // the EventId of the filter that returned early, 0 if none
};

class ReceptorInvoker {
 public:
  ReceptorInvoker(Dispatcher& dispatcher, ReceptorInvokerOptions options);

  absl::StatusOr<InvokeReport> invoke(Envelope& envelope, Stage stage,
                                      const LifecycleContext& context = {});

  // Runs a Detached invocation kept in the store whose process did not run it (claimed with
  // WorkStore::claim_detached_work), on the calling thread. A receptor or envelope this registry
  // does not know dead-letters it.
  absl::Status run_detached_work(const DetachedWork& work);

  const ReceptorInvokerOptions& options() const { return options_; }

 private:
  bool skipped_by_filters(const Envelope& envelope, Stage stage, bool has_receptors,
                          InvokeReport& report) const;
  // Puts the guardrail's decision on `span` (the receptor's span; inert when tracing is off).
  bool stopped_by_guardrail(const Envelope& envelope, const ReceptorInfo& receptor, Stage stage,
                            const LifecycleContext& context, Span& span) const;
  absl::Status fire(Envelope& envelope, const ReceptorInfo& receptor, Stage stage,
                    const LifecycleContext& context);
  // Runs the receptor's own handling of `envelope`, logging EventIds 16 and 17. Not `emit`: what
  // it returns is dropped (replay/rebuild).
  absl::Status run(const ReceptorInfo& receptor, Stage stage, const Envelope& envelope,
                   bool emit = true);
  // Runs kept detached work in a transaction that first deletes it (so only one run owns it) and
  // commits with what the receptor emitted; a failure keeps it for a retry (`attempts`: its
  // failures before this run, for the retry policy).
  absl::Status run_detached(const MessageId& work_id, const ReceptorInfo& receptor, Stage stage,
                            const Envelope& envelope, int attempts);
  // Appends the record of a successful invocation to the envelope and returns it.
  const ReceptorInvocationRecord& append_record(Envelope& envelope, const ReceptorInfo& receptor,
                                                Stage stage, const LifecycleContext& context,
                                                TimePoint completed_at,
                                                std::chrono::microseconds duration) const;

  Dispatcher& dispatcher_;
  ReceptorInvokerOptions options_;
  // The dedup question an ordinary receptor asks: this service's name, or nullopt ("anywhere")
  // for a host that does not know its name. Built once: it is asked before every invocation.
  std::optional<std::string_view> own_service_;
  // Set when the dedup store is the default one, which reads only the envelope's records: an
  // envelope without records then needs no lookup, and recording needs no call.
  bool dedup_reads_envelope_only_ = false;
};

}  // namespace whizbang
