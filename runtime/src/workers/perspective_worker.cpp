#include "whizbang/workers/perspective_worker.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>
#include <set>

#include "fmt/format.h"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {

absl::StatusOr<Envelope> envelope_from_stored_event(const MessageId& event_id,
                                                    std::string_view event_type,
                                                    std::string_view event_data,
                                                    std::string_view metadata_json,
                                                    const Registry& registry) {
  // Rebuild the envelope JSON ({"v","id","t","p","h"}) from the row's parts and decode it with
  // the envelope codec, so stored events and envelopes can never disagree on the hop format.
  // Bounded: stored rows are data, and a deeply nested one must not overflow the stack.
  rapidjson::Document metadata;
  if (internal::parse_bounded(metadata_json, metadata).IsError() || !metadata.IsObject()) {
    return absl::InvalidArgumentError(
        fmt::format("event {}: metadata is not a JSON object", event_id));
  }
  rapidjson::Document payload;
  if (internal::parse_bounded(event_data, payload).IsError()) {
    return absl::InvalidArgumentError(fmt::format("event {}: payload is not JSON", event_id));
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  const std::string id = event_id.to_string();
  writer.StartObject();
  writer.Key("v");
  writer.Int(1);
  writer.Key("id");
  writer.String(id.data(), static_cast<rapidjson::SizeType>(id.size()));
  writer.Key("t");
  writer.String(event_type.data(), static_cast<rapidjson::SizeType>(event_type.size()));
  writer.Key("p");
  payload.Accept(writer);
  if (auto hops = metadata.FindMember("Hops"); hops != metadata.MemberEnd()) {
    writer.Key("h");
    hops->value.Accept(writer);
  }
  writer.EndObject();
  return deserialize_envelope(std::string_view(buffer.GetString(), buffer.GetSize()),
                              [&](std::string_view name) { return registry.find_message(name); });
}

PerspectiveWorker::PerspectiveWorker(WorkStore& store, PerspectiveRunner& runner,
                                     PerspectiveWorkerOptions options)
    : store_(store), runner_(runner), options_(std::move(options)) {}

PerspectiveWorker::~PerspectiveWorker() { stop(); }

absl::StatusOr<PerspectiveCycleResult> PerspectiveWorker::run_once() {
  const auto claimed_at = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<PerspectiveWork>> work =
      store_.claim_perspective_work(options_.max_batch);
  if (!work.ok()) return work.status();
  PerspectiveCycleResult result;
  const LifecycleContext context{.mode = options_.mode, .perspective = {}};
  // One envelope per event in the batch: its perspectives' records accumulate on it.
  std::map<MessageId, Envelope> envelopes;
  // (stream, perspective) lanes with a failed event in this batch: their later events wait.
  std::set<std::pair<Uuid, std::string>> failed_lanes;
  // Events whose gate opened here and whose stages failed: an immediate retry (a retry policy's
  // wait of zero) waits for the next cycle, as every other row's does.
  std::set<MessageId> failed_gates;
  for (std::size_t index = 0; index < work->size(); ++index) {
    const PerspectiveWork& item = (*work)[index];
    if (index > 0 && std::chrono::steady_clock::now() - claimed_at >= options_.max_batch_time) {
      // The rest waits for the next cycle's claim (a fresh lease), which starts at once.
      result.left_for_next_cycle = work->size() - index;
      loop_.notify();
      break;
    }
    const std::pair<Uuid, std::string> lane{item.stream_id, item.perspective_name};
    if (failed_lanes.contains(lane)) {
      ++result.held_back;
      continue;  // still leased to this instance; the claim holds it back until the retry
    }
    auto fail = [&](const absl::Status& status, LogEvent event, bool dead_letter) -> absl::Status {
      log(options_.logger, spdlog::level::warn, event, "perspective {} on event {} failed: {}",
          item.perspective_name, item.event_id, status.ToString());
      ++result.failed;
      failed_lanes.insert(lane);
      // Its stream's later events wait for its retry, at once or after the backoff alike.
      const RetryOutcome outcome = options_.retry_policies.outcome(
          status, item.attempts, dead_letter || is_permanent(status));
      return store_.fail_perspective_work(item.event_work_id, status.ToString(),
                                          outcome.dead_letter, outcome.retry);
    };
    const PerspectiveInfo* perspective = runner_.registry().find_perspective(item.perspective_name);
    if (perspective == nullptr) {
      absl::Status status = fail(absl::NotFoundError(fmt::format(
                                     "no perspective {} in this registry", item.perspective_name)),
                                 log_events::kPerspectiveEventQuarantined, /*dead_letter=*/true);
      if (!status.ok()) return status;
      continue;
    }
    auto found = envelopes.find(item.event_id);
    if (found == envelopes.end()) {
      absl::StatusOr<Envelope> envelope = envelope_from_stored_event(item, runner_.registry());
      if (!envelope.ok()) {
        if (absl::Status status = fail(envelope.status(), log_events::kPerspectiveEventQuarantined,
                                       /*dead_letter=*/true);
            !status.ok()) {
          return status;
        }
        continue;
      }
      found = envelopes.emplace(item.event_id, *std::move(envelope)).first;
    }
    bool gate_opened = false;
    absl::StatusOr<PerspectiveOutcome> outcome;
    const absl::Status applied = status_of_call(item.perspective_name, [&] {
      outcome = runner_.apply(found->second, *perspective, context, &item.event_work_id,
                              &gate_opened, item.version);
      return outcome.status();
    });
    if (!applied.ok()) {
      if (!gate_opened) {
        if (absl::Status status = fail(applied, log_events::kPerspectiveApplyFailed, false);
            !status.ok()) {
          return status;
        }
        continue;
      }
      // A PostPerspective stage failed after the row completed: the gate still opened here.
      log(options_.logger, spdlog::level::warn, log_events::kPerspectiveApplyFailed,
          "perspective {} on event {}: {}", item.perspective_name, item.event_id,
          applied.ToString());
    } else {
      ++(*outcome == PerspectiveOutcome::Applied ? result.applied : result.already_applied);
    }
    if (!gate_opened) continue;
    ++result.events_completed;
    const std::size_t failed_before = result.lifecycle_failed;
    if (absl::Status status = finish(found->second, /*attempts=*/0, result); !status.ok()) {
      return status;
    }
    if (result.lifecycle_failed > failed_before) failed_gates.insert(item.event_id);
  }

  // Lifecycle completions owed from earlier: a process that died before their stages ran, or
  // stages that failed and are due for a retry.
  absl::StatusOr<std::vector<LifecycleWork>> owed = store_.claim_lifecycle_work(options_.max_batch);
  if (!owed.ok()) return owed.status();
  for (const LifecycleWork& item : *owed) {
    if (failed_gates.contains(item.event_id)) continue;  // leased to this instance until then
    absl::StatusOr<Envelope> envelope = envelope_from_stored_event(
        item.event_id, item.event_type, item.event_data, item.metadata, runner_.registry());
    if (!envelope.ok()) {
      ++result.lifecycle_failed;
      if (absl::Status status = store_.fail_lifecycle_work(
              item.event_id, envelope.status().ToString(), /*dead_letter=*/true);
          !status.ok()) {
        return status;
      }
      continue;
    }
    if (absl::Status status = finish(*envelope, item.attempts, result); !status.ok()) {
      return status;
    }
  }
  // A full claim that moved something: more is likely waiting (worker_loop.hpp).
  const bool moved = result.applied + result.already_applied + result.failed > 0;
  if (work->size() >= options_.max_batch && moved) loop_.notify();
  return result;
}

absl::Status PerspectiveWorker::finish(Envelope& envelope, int attempts,
                                       PerspectiveCycleResult& result) {
  // The stages fire, and their records commit, while the lifecycle completion is this
  // instance's: one that took it over after this one's lease lapsed (a stalled thread) finds it
  // gone or fires nothing here, rather than both firing it (docs/guide/11-failures.md).
  Transaction transaction(store_);
  if (!transaction.status().ok()) return transaction.status();
  absl::StatusOr<bool> held = store_.renew_lifecycle_work(envelope.message_id);
  if (!held.ok()) return held.status();
  if (!*held) {
    log(options_.logger, spdlog::level::warn, log_events::kLeaseLost,
        "the post-perspective stages of event {} were taken over by another instance; they are "
        "left to that instance",
        envelope.message_id);
    ++result.lease_lost;
    return absl::OkStatus();
  }
  const LifecycleContext context{.mode = options_.mode, .perspective = {}};
  const absl::Status stages =
      status_of_call("PostAllPerspectives", [&] { return runner_.finish(envelope, context); });
  if (stages.ok()) {
    ++result.lifecycle_completed;
    if (absl::Status status = store_.complete_lifecycle_work(envelope.message_id); !status.ok()) {
      return status;
    }
    return transaction.commit();
  }
  log(options_.logger, spdlog::level::warn, log_events::kPerspectiveApplyFailed,
      "post-perspective stages of event {} failed: {}", envelope.message_id, stages.ToString());
  ++result.lifecycle_failed;
  // The records of the receptors that fired before the failure commit with it.
  const RetryOutcome outcome =
      options_.retry_policies.outcome(stages, attempts, is_permanent(stages));
  if (absl::Status status = store_.fail_lifecycle_work(envelope.message_id, stages.ToString(),
                                                       outcome.dead_letter, outcome.retry);
      !status.ok()) {
    return status;
  }
  return transaction.commit();
}

void PerspectiveWorker::start() {
  loop_.start([this] { return run_once().status(); }, "perspective", options_.poll_interval,
              options_.logger);
}

void PerspectiveWorker::stop() { loop_.stop(); }

}  // namespace whizbang
