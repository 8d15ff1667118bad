// PerspectiveStore: the part of the durable-store contract that perspectives run on — which
// events each perspective still has to apply, and the models they build
// (docs/guide/07-perspectives.md).
//
// WorkStore extends it: perspective events are written in the transaction that appends the
// event, so one store keeps both.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/retry/retry_policy.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang {

class PerspectiveStore {
 public:
  virtual ~PerspectiveStore() = default;

  // Events of `message_type` stored to the event store get a perspective event for
  // `perspective` (wh_message_associations, association type "perspective").
  virtual absl::Status add_perspective_association(std::string_view message_type,
                                                   std::string_view perspective) = 0;

  // Perspective events to apply, in (stream, event id) order: rows unleased, leased to this
  // instance, or whose lease lapsed, not scheduled in the future and not dead-lettered. Each is
  // leased to this instance. Per (stream, perspective), a row waits while an earlier one is
  // pending elsewhere (leased to another instance, or waiting for its retry).
  virtual absl::StatusOr<std::vector<PerspectiveWork>> claim_perspective_work(
      std::size_t max_items) = 0;
  // Deletes the perspective events (applied). For each event none of whose perspective events
  // remain, records a lifecycle completion (WorkStore::claim_lifecycle_work) in the same
  // transaction and reports the event: exactly one call ever reports an event.
  virtual absl::StatusOr<PerspectiveCompletion> complete_perspective_work(
      std::span<const MessageId> event_work_ids) = 0;
  // Releases a perspective event whose apply failed: attempts + 1, error kept, retried after the
  // store's backoff (failure_backoff); dead-lettered at max_attempts, or at once with
  // `dead_letter` (an unknown perspective, an event that cannot be decoded). `retry`: the retry
  // policy's decision instead (its wait and max attempts, whizbang/store/retry_policies.hpp).
  // Every override keeps the same default.
  virtual absl::Status fail_perspective_work(
      const MessageId& event_work_id, std::string_view error, bool dead_letter,
      const std::optional<RetryDecision>& retry = std::nullopt) = 0;

  // The stored model of `perspective` for `stream_id`; nullopt when no event was applied yet.
  virtual absl::StatusOr<std::optional<PerspectiveModelRow>> load_perspective_model(
      std::string_view perspective, const Uuid& stream_id) = 0;
  // A page of `perspective`'s models in stream-id order: those after `after_stream` (from the
  // first when nullopt), at most `limit` of them. Pages by key, so a page costs the same however
  // deep it is (PerspectiveModels<Model>, whizbang/store/perspective_models.hpp, is the typed
  // form).
  virtual absl::StatusOr<std::vector<PerspectiveModelEntry>> list_perspective_models(
      std::string_view perspective, const std::optional<Uuid>& after_stream, std::size_t limit) = 0;
  // Inserts or replaces the model (upsert on (perspective, stream)).
  virtual absl::Status save_perspective_model(std::string_view perspective, const Uuid& stream_id,
                                              std::string_view model_json,
                                              const MessageId& last_event_id) = 0;
};

}  // namespace whizbang
