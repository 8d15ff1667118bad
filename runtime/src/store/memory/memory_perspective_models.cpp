// MemoryPerspectives::list_perspective_models: a perspective's models, a page at a time.
#include "memory/memory_core.hpp"
#include "memory/memory_perspectives.hpp"

namespace whizbang {

absl::StatusOr<std::vector<PerspectiveModelEntry>> MemoryPerspectives::list_perspective_models(
    std::string_view perspective, const std::optional<Uuid>& after_stream, std::size_t limit) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<PerspectiveModelEntry>> {
    // The map is ordered by (perspective, stream): start past `after_stream`, stop at the next
    // perspective.
    const auto& models = core_.state.perspective_models;
    const std::string name(perspective);
    auto it = after_stream ? models.upper_bound({name, *after_stream})
                           : models.lower_bound({name, Uuid{}});
    std::vector<PerspectiveModelEntry> page;
    for (; it != models.end() && it->first.first == name && page.size() < limit; ++it) {
      page.push_back({it->first.second, it->second});
    }
    return page;
  });
}

}  // namespace whizbang
