#include "sync_models.hpp"

#include <mutex>

namespace psync {

absl::Status TrailPerspective::apply(Trail& model, const ItemAdded& event) {
  if (event.name == "poison") return absl::InvalidArgumentError("poison cannot be applied");
  model.names.push_back(event.name);
  return absl::OkStatus();
}

ItemAdded AddItemReceptor::handle(const AddItem& command) {
  ItemAdded added;
  added.name = command.name;
  return added;
}

namespace {
std::mutex recorder_mutex;
std::vector<std::string>& recorded() {
  static std::vector<std::string> names;
  return names;
}
}  // namespace

void PostPerspectiveRecorder::handle(const ItemAdded& event) {
  std::lock_guard lock(recorder_mutex);
  recorded().push_back(event.name);
}

std::vector<std::string> PostPerspectiveRecorder::fired() {
  std::lock_guard lock(recorder_mutex);
  return recorded();
}

void PostPerspectiveRecorder::clear() {
  std::lock_guard lock(recorder_mutex);
  recorded().clear();
}

}  // namespace psync
