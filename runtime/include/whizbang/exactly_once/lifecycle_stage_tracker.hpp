// LifecycleStageTracker: claims (message, stage[, perspective]) so that two workers reaching the
// same stage for the same message fire its receptors once.
//
// Perspective-scoped stages are claimed per perspective: an event processed by N perspectives
// claims PostPerspectiveInline N times, once under each.
//
//   if (!tracker.try_claim(id, Stage::PostInboxInline)) return;  // another worker has it
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/stage.hpp"

namespace whizbang {

class LifecycleStageTracker {
 public:
  using Clock = std::chrono::steady_clock;

  // True only for the first caller of a key.
  bool try_claim(const MessageId& message_id, Stage stage, std::string_view perspective = {});
  // Frees a claim so a retry can take it.
  void release(const MessageId& message_id, Stage stage, std::string_view perspective = {});
  // Drops claims older than `max_age`; returns how many were dropped.
  std::size_t purge(Clock::duration max_age);
  std::size_t size() const;

 private:
  using Key = std::tuple<MessageId, int, std::string>;
  // A std::mutex, as everywhere in the runtime: ThreadSanitizer sees it (Debian's Abseil is not
  // built with TSan, so an absl::Mutex's ordering is invisible to it and reads as a race).
  mutable std::mutex mutex_;
  absl::flat_hash_map<Key, Clock::time_point> claims_;  // guarded by mutex_
};

}  // namespace whizbang
