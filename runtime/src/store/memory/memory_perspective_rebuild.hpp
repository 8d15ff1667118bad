// MemoryPerspectiveRebuild: the perspective-rebuild role on memory.
#pragma once

#include "memory/memory_core.hpp"
#include "whizbang/store/perspective_rebuild_store.hpp"

namespace whizbang {

class MemoryPerspectiveRebuild final : public PerspectiveRebuildStore {
 public:
  explicit MemoryPerspectiveRebuild(MemoryCore& core) : core_(core) {}

  absl::StatusOr<std::vector<Uuid>> perspective_streams(std::span<const std::string> event_types,
                                                        const std::optional<Uuid>& after,
                                                        std::size_t limit) override;
  absl::StatusOr<std::int64_t> count_perspective_events(std::span<const std::string> event_types,
                                                        std::span<const Uuid> streams) override;
  absl::StatusOr<std::vector<StoredEvent>> read_perspective_events(
      std::span<const Uuid> streams, std::span<const std::string> event_types) override;
  absl::Status complete_replayed_events(std::string_view perspective, const Uuid& stream,
                                        std::int64_t version) override;
  absl::Status record_shadow_stream(std::string_view shadow, const Uuid& stream,
                                    std::int64_t version) override;
  absl::StatusOr<std::vector<Uuid>> shadow_streams_behind(std::string_view shadow,
                                                          std::span<const std::string> event_types,
                                                          std::span<const Uuid> streams) override;
  absl::Status lock_perspective_models(std::string_view perspective) override;
  absl::Status swap_shadow_models(std::string_view perspective, std::string_view shadow,
                                  std::span<const Uuid> streams) override;
  absl::Status drop_perspective_models(std::string_view perspective) override;
  absl::StatusOr<bool> has_perspective_models(std::string_view perspective) override;
  absl::StatusOr<bool> request_perspective_rebuild(const PerspectiveRebuildRow& row) override;
  absl::StatusOr<std::optional<PerspectiveRebuildRow>> claim_perspective_rebuild(
      std::span<const std::string> perspectives, std::chrono::milliseconds lease) override;
  absl::StatusOr<bool> save_perspective_rebuild(const PerspectiveRebuildRow& row,
                                                std::chrono::milliseconds lease) override;
  absl::StatusOr<std::vector<PerspectiveRebuildRow>> perspective_rebuilds() override;
  absl::StatusOr<std::vector<PerspectiveVersionRow>> perspective_versions() override;
  absl::Status set_perspective_version(std::string_view perspective,
                                       std::uint32_t version) override;
  absl::StatusOr<std::vector<PerspectiveLag>> perspective_lag() override;

 private:
  void complete_replayed(std::string_view perspective, const Uuid& stream, std::int64_t version);
  MemoryCore& core_;
};

}  // namespace whizbang
