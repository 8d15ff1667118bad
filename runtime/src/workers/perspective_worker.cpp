#include "whizbang/workers/perspective_worker.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>

#include "fmt/format.h"
#include "whizbang/envelope_json.hpp"
#include "whizbang/logging.hpp"

namespace whizbang {

absl::StatusOr<Envelope> envelope_from_stored_event(const PerspectiveWork& work,
                                                    const Registry& registry) {
  // Rebuild the envelope JSON ({"v","id","t","p","h"}) from the row's parts and decode it with
  // the envelope codec, so stored events and envelopes can never disagree on the hop format.
  rapidjson::Document metadata;
  metadata.Parse(work.metadata.data(), work.metadata.size());
  if (metadata.HasParseError() || !metadata.IsObject()) {
    return absl::InvalidArgumentError(
        fmt::format("event {}: metadata is not a JSON object", work.event_id));
  }
  rapidjson::Document payload;
  payload.Parse(work.event_data.data(), work.event_data.size());
  if (payload.HasParseError()) {
    return absl::InvalidArgumentError(fmt::format("event {}: payload is not JSON", work.event_id));
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  const std::string id = work.event_id.to_string();
  writer.StartObject();
  writer.Key("v");
  writer.Int(1);
  writer.Key("id");
  writer.String(id.data(), static_cast<rapidjson::SizeType>(id.size()));
  writer.Key("t");
  writer.String(work.event_type.data(), static_cast<rapidjson::SizeType>(work.event_type.size()));
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
  absl::StatusOr<std::vector<PerspectiveWork>> work =
      store_.claim_perspective_work(options_.max_batch);
  if (!work.ok()) return work.status();
  PerspectiveCycleResult result;
  const LifecycleContext context{.mode = options_.mode, .perspective = {}};
  // One envelope per event in the batch: its perspectives' records accumulate on it.
  std::map<MessageId, Envelope> envelopes;
  for (const PerspectiveWork& item : *work) {
    auto fail = [&](const absl::Status& status, LogEvent event) -> absl::Status {
      log(options_.logger, spdlog::level::warn, event, "perspective {} on event {} failed: {}",
          item.perspective_name, item.event_id, status.ToString());
      ++result.failed;
      return store_.fail_perspective_work(item.event_work_id, status.ToString());
    };
    const PerspectiveInfo* perspective = runner_.registry().find_perspective(item.perspective_name);
    if (perspective == nullptr) {
      absl::Status status = fail(absl::NotFoundError(fmt::format(
                                     "no perspective {} in this registry", item.perspective_name)),
                                 log_events::kPerspectiveEventQuarantined);
      if (!status.ok()) return status;
      continue;
    }
    auto found = envelopes.find(item.event_id);
    if (found == envelopes.end()) {
      absl::StatusOr<Envelope> envelope = envelope_from_stored_event(item, runner_.registry());
      if (!envelope.ok()) {
        if (absl::Status status = fail(envelope.status(), log_events::kPerspectiveEventQuarantined);
            !status.ok()) {
          return status;
        }
        continue;
      }
      found = envelopes.emplace(item.event_id, *std::move(envelope)).first;
    }
    bool gate_opened = false;
    absl::StatusOr<PerspectiveOutcome> outcome =
        runner_.apply(found->second, *perspective, context, &item.event_work_id, &gate_opened);
    if (!outcome.ok()) {
      if (absl::Status status = fail(outcome.status(), log_events::kPerspectiveApplyFailed);
          !status.ok()) {
        return status;
      }
      // A PostPerspective stage failed after the row completed: the gate still opened here.
      if (!gate_opened) continue;
    } else {
      ++(*outcome == PerspectiveOutcome::Applied ? result.applied : result.already_applied);
    }
    if (!gate_opened) continue;
    ++result.events_completed;
    if (absl::Status status = runner_.finish(found->second, context); !status.ok()) {
      log(options_.logger, spdlog::level::warn, log_events::kPerspectiveApplyFailed,
          "post-perspective stages of event {} failed: {}", item.event_id, status.ToString());
    }
  }
  return result;
}

void PerspectiveWorker::start() {
  loop_.start([this] { return run_once().status(); }, "perspective", options_.poll_interval,
              options_.logger);
}

void PerspectiveWorker::stop() { loop_.stop(); }

}  // namespace whizbang
