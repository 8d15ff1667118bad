// StageWorkStore: the stage-work role of the durable store — the lifecycle stages that run after
// an event's perspectives (lifecycle completions), and Detached stages' invocations kept until
// they have run. The lifecycle and detached workers call it through WorkStore (work_store.hpp).
//
//   auto work = store.claim_lifecycle_work(64);              // leased to this instance
//   for (const whizbang::LifecycleWork& w : *work) {
//     ... fire the stages ...
//     (void)store.complete_lifecycle_work(w.event_id);       // or fail_lifecycle_work(...)
//   }
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang {

class StageWorkStore {
 public:
  virtual ~StageWorkStore() = default;

  // ---- lifecycle stages after perspectives --------------------------------------------------
  // Lifecycle completions (see LifecycleWork) that are unleased, leased to this instance or whose
  // lease lapsed, and due; each is leased to this instance. Oldest event first.
  virtual absl::StatusOr<std::vector<LifecycleWork>> claim_lifecycle_work(
      std::size_t max_items) = 0;
  // Extends this instance's lease on the lifecycle completion of `event_id`; false when it is
  // not this instance's (another took it over, or it is gone). Inside a transaction the
  // completion then stays this instance's until the commit: its stages fire in between.
  virtual absl::StatusOr<bool> renew_lifecycle_work(const MessageId& event_id) = 0;
  // Its stages succeeded: the lifecycle completion is deleted.
  virtual absl::Status complete_lifecycle_work(const MessageId& event_id) = 0;
  // Its stages failed: retried with backoff, dead-lettered like any row. `retry`: the retry
  // policy's decision instead of the store's schedule (whizbang/store/retry_policies.hpp).
  // Every override keeps the same default, here and below.
  virtual absl::Status fail_lifecycle_work(
      const MessageId& event_id, std::string_view error, bool dead_letter,
      const std::optional<RetryDecision>& retry = std::nullopt) = 0;

  // ---- detached stages ----------------------------------------------------------------------
  // Keeps a Detached stage's invocation until it has run (see DetachedWork), leased to this
  // instance; joins the caller's transaction.
  virtual absl::Status store_detached_work(const DetachedWork& work) = 0;
  // Detached work that is unleased (waiting for a retry) or whose lease lapsed (its process died),
  // and due; each is leased to this instance. Not work leased to this instance: that is on its way
  // through this process's executor. Oldest first.
  virtual absl::StatusOr<std::vector<DetachedWork>> claim_detached_work(std::size_t max_items) = 0;
  // Deletes the work while this instance holds its lease: the run that calls it, inside the
  // transaction that runs the receptor, owns the run. False: it is gone (the handling that
  // scheduled it rolled back, or it ran), failed and waits for a retry, or another instance took
  // it over.
  virtual absl::StatusOr<bool> complete_detached_work(const MessageId& work_id) = 0;
  // Its run failed: retried with backoff (or as `retry` says), dead-lettered like any row.
  virtual absl::Status fail_detached_work(
      const MessageId& work_id, std::string_view error, bool dead_letter,
      const std::optional<RetryDecision>& retry = std::nullopt) = 0;
};

}  // namespace whizbang
