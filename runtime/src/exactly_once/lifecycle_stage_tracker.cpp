#include "whizbang/exactly_once/lifecycle_stage_tracker.hpp"

namespace whizbang {

bool LifecycleStageTracker::try_claim(const MessageId& message_id, Stage stage,
                                      std::string_view perspective) {
  const std::string scope = is_perspective_scoped(stage) ? std::string(perspective) : std::string();
  std::lock_guard lock(mutex_);
  return claims_.try_emplace(Key{message_id, static_cast<int>(stage), scope}, Clock::now()).second;
}

void LifecycleStageTracker::release(const MessageId& message_id, Stage stage,
                                    std::string_view perspective) {
  const std::string scope = is_perspective_scoped(stage) ? std::string(perspective) : std::string();
  std::lock_guard lock(mutex_);
  claims_.erase(Key{message_id, static_cast<int>(stage), scope});
}

std::size_t LifecycleStageTracker::purge(Clock::duration max_age) {
  const Clock::time_point cutoff = Clock::now() - max_age;
  std::lock_guard lock(mutex_);
  return absl::erase_if(claims_, [&](const auto& entry) { return entry.second < cutoff; });
}

std::size_t LifecycleStageTracker::size() const {
  std::lock_guard lock(mutex_);
  return claims_.size();
}

}  // namespace whizbang
