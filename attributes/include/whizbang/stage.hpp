// Stage: the lifecycle points at which a receptor can fire.
//
// Values match the reference's LifecycleStage numbering so stored invocation records stay
// comparable across implementations. `*Inline` stages block the unit of work; `*Detached`
// stages run on an executor in their own scope.
//
// Example:
//   class [[whizbang::fire_at(whizbang::Stage::PostPerspectiveInline)]] Counter
//       : public whizbang::Receptor<OrderCreated> { ... };
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace whizbang {

enum class Stage : int {
  AfterReceptorCompletion = -1,  // tag hook only, never a firing stage
  ImmediateDetached = 0,
  LocalImmediateDetached = 1,  // default stage #1
  LocalImmediateInline = 2,
  PreDistributeDetached = 3,
  PreDistributeInline = 4,
  DistributeDetached = 5,
  PostDistributeDetached = 6,
  PostDistributeInline = 7,
  PreOutboxDetached = 8,
  PreOutboxInline = 9,
  PostOutboxDetached = 10,
  PostOutboxInline = 11,
  PreInboxDetached = 12,
  PreInboxInline = 13,
  PostInboxDetached = 14,  // default stage #2
  PostInboxInline = 15,
  PrePerspectiveDetached = 16,
  PrePerspectiveInline = 17,
  PostPerspectiveDetached = 18,
  PostPerspectiveInline = 19,
  PostAllPerspectivesDetached = 20,
  PostAllPerspectivesInline = 21,
  PostLifecycleDetached = 22,
  PostLifecycleInline = 23,
};

inline constexpr std::array<std::string_view, 25> kStageNames = {
    "AfterReceptorCompletion",
    "ImmediateDetached",
    "LocalImmediateDetached",
    "LocalImmediateInline",
    "PreDistributeDetached",
    "PreDistributeInline",
    "DistributeDetached",
    "PostDistributeDetached",
    "PostDistributeInline",
    "PreOutboxDetached",
    "PreOutboxInline",
    "PostOutboxDetached",
    "PostOutboxInline",
    "PreInboxDetached",
    "PreInboxInline",
    "PostInboxDetached",
    "PostInboxInline",
    "PrePerspectiveDetached",
    "PrePerspectiveInline",
    "PostPerspectiveDetached",
    "PostPerspectiveInline",
    "PostAllPerspectivesDetached",
    "PostAllPerspectivesInline",
    "PostLifecycleDetached",
    "PostLifecycleInline",
};

constexpr std::string_view to_string(Stage stage) {
  const int index = static_cast<int>(stage) + 1;
  if (index < 0 || index >= static_cast<int>(kStageNames.size())) return "Unknown";
  return kStageNames[static_cast<std::size_t>(index)];
}

constexpr std::optional<Stage> stage_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kStageNames.size(); ++i) {
    if (kStageNames[i] == name) return static_cast<Stage>(static_cast<int>(i) - 1);
  }
  return std::nullopt;
}

constexpr bool is_detached(Stage stage) {
  return stage != Stage::AfterReceptorCompletion && to_string(stage).ends_with("Detached");
}
constexpr bool is_inline(Stage stage) { return to_string(stage).ends_with("Inline"); }

// Stages that fan out once per perspective: their dedup key includes the perspective.
constexpr bool is_perspective_scoped(Stage stage) {
  return stage == Stage::PrePerspectiveInline || stage == Stage::PrePerspectiveDetached ||
         stage == Stage::PostPerspectiveInline || stage == Stage::PostPerspectiveDetached;
}

// Stages a receptor without fire_at registers at.
inline constexpr std::array<Stage, 2> kDefaultStages = {Stage::LocalImmediateDetached,
                                                        Stage::PostInboxDetached};

}  // namespace whizbang
