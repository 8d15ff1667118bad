#include "sync_models.hpp"

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

}  // namespace psync
