// ComposedWorkStore: the PerspectiveRebuildStore calls, forwarded to the backend's rebuild role.
#include "whizbang/store/composed_work_store.hpp"

namespace whizbang {

absl::StatusOr<std::vector<Uuid>> ComposedWorkStore::perspective_streams(
    std::span<const std::string> event_types, const std::optional<Uuid>& after, std::size_t limit) {
  return roles_.rebuilds->perspective_streams(event_types, after, limit);
}
absl::StatusOr<std::int64_t> ComposedWorkStore::count_perspective_events(
    std::span<const std::string> event_types, std::span<const Uuid> streams) {
  return roles_.rebuilds->count_perspective_events(event_types, streams);
}
absl::StatusOr<std::vector<StoredEvent>> ComposedWorkStore::read_perspective_events(
    std::span<const Uuid> streams, std::span<const std::string> event_types) {
  return roles_.rebuilds->read_perspective_events(streams, event_types);
}
absl::Status ComposedWorkStore::complete_replayed_events(std::string_view perspective,
                                                         const Uuid& stream, std::int64_t version) {
  return roles_.rebuilds->complete_replayed_events(perspective, stream, version);
}
absl::Status ComposedWorkStore::record_shadow_stream(std::string_view shadow, const Uuid& stream,
                                                     std::int64_t version) {
  return roles_.rebuilds->record_shadow_stream(shadow, stream, version);
}
absl::StatusOr<std::vector<Uuid>> ComposedWorkStore::shadow_streams_behind(
    std::string_view shadow, std::span<const std::string> event_types,
    std::span<const Uuid> streams) {
  return roles_.rebuilds->shadow_streams_behind(shadow, event_types, streams);
}
absl::Status ComposedWorkStore::lock_perspective_models(std::string_view perspective) {
  return roles_.rebuilds->lock_perspective_models(perspective);
}
absl::Status ComposedWorkStore::swap_shadow_models(std::string_view perspective,
                                                   std::string_view shadow,
                                                   std::span<const Uuid> streams) {
  return roles_.rebuilds->swap_shadow_models(perspective, shadow, streams);
}
absl::Status ComposedWorkStore::drop_perspective_models(std::string_view perspective) {
  return roles_.rebuilds->drop_perspective_models(perspective);
}
absl::StatusOr<bool> ComposedWorkStore::has_perspective_models(std::string_view perspective) {
  return roles_.rebuilds->has_perspective_models(perspective);
}
absl::StatusOr<bool> ComposedWorkStore::request_perspective_rebuild(
    const PerspectiveRebuildRow& row) {
  return roles_.rebuilds->request_perspective_rebuild(row);
}
absl::StatusOr<std::optional<PerspectiveRebuildRow>> ComposedWorkStore::claim_perspective_rebuild(
    std::span<const std::string> perspectives, std::chrono::milliseconds lease) {
  return roles_.rebuilds->claim_perspective_rebuild(perspectives, lease);
}
absl::StatusOr<bool> ComposedWorkStore::save_perspective_rebuild(const PerspectiveRebuildRow& row,
                                                                 std::chrono::milliseconds lease) {
  return roles_.rebuilds->save_perspective_rebuild(row, lease);
}
absl::StatusOr<std::vector<PerspectiveRebuildRow>> ComposedWorkStore::perspective_rebuilds() {
  return roles_.rebuilds->perspective_rebuilds();
}
absl::StatusOr<std::vector<PerspectiveVersionRow>> ComposedWorkStore::perspective_versions() {
  return roles_.rebuilds->perspective_versions();
}
absl::Status ComposedWorkStore::set_perspective_version(std::string_view perspective,
                                                        std::uint32_t version) {
  return roles_.rebuilds->set_perspective_version(perspective, version);
}
absl::StatusOr<std::vector<PerspectiveLag>> ComposedWorkStore::perspective_lag() {
  return roles_.rebuilds->perspective_lag();
}

}  // namespace whizbang
