#include "service_host_own_events.hpp"

#include <algorithm>

namespace whizbang::host_internal {
namespace {

// Stages the inbox path never runs: a receptor there fires only in the publishing service.
bool off_inbox_path(Stage stage) {
  switch (stage) {
    case Stage::LocalImmediateDetached:
    case Stage::LocalImmediateInline:
    case Stage::PreOutboxDetached:
    case Stage::PreOutboxInline:
    case Stage::PostOutboxDetached:
    case Stage::PostOutboxInline:
      return true;
    default:
      return false;
  }
}

// The inbox stages that skip a message whose last hop came from this service (EventId 10).
bool skips_own(Stage stage) {
  return stage == Stage::PostInboxDetached || stage == Stage::PostInboxInline;
}

}  // namespace

bool matches_any(std::string_view wire_name, std::span<const std::string> patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](std::string_view pattern) {
    if (pattern.ends_with('*')) return wire_name.starts_with(pattern.substr(0, pattern.size() - 1));
    return wire_name == pattern;
  });
}

EventBinding event_binding(const Registry& registry, const MessageEntry& entry,
                           const OwnEvents& own_events) {
  bool on_inbox_path = !entry.perspectives.empty();
  bool runs_for_own = on_inbox_path;
  const std::span<const ReceptorInfo> receptors =
      registry.receptors().subspan(entry.first_receptor, entry.receptor_count);
  for (const ReceptorInfo& receptor : receptors) {
    for (Stage stage : receptor.stages) {
      if (off_inbox_path(stage)) continue;
      on_inbox_path = true;
      runs_for_own = runs_for_own || !skips_own(stage);
    }
  }
  // Every type handled here is bound, even one whose receptors fire on the local or outbox path
  // only: deployments and tools count what a service receives (its inbox deduplication ids).
  const bool handled_here = on_inbox_path || !receptors.empty();
  EventBinding binding;
  binding.bind = handled_here && !matches_any(entry.info->wire_name, own_events.local_only);
  binding.own_does_nothing = binding.bind && !runs_for_own;
  return binding;
}

}  // namespace whizbang::host_internal
