// The messages, receptor and perspective of the rewind and read-your-writes tests: a list whose
// model records the names of the items applied, in the order applied.
#pragma once

#include <string>
#include <vector>

#include <whizbang/attributes.hpp>

#include "absl/status/status.h"

namespace psync {

struct ItemAdded : whizbang::Event {
  std::string name;
};
struct AddItem : whizbang::Command {
  std::string name;
};

struct Trail {
  std::vector<std::string> names;
};

// Applies ItemAdded by appending its name; an item named "poison" fails to apply.
class TrailPerspective : public whizbang::Perspective<Trail> {
 public:
  absl::Status apply(Trail& model, const ItemAdded& event);
};

// Handles AddItem by emitting ItemAdded (stored to the event store, stream = the command's id).
class AddItemReceptor : public whizbang::Receptor<AddItem, ItemAdded> {
 public:
  ItemAdded handle(const AddItem& command);
};

// Records the name of every ItemAdded whose PostPerspectiveInline stage fires, process-wide (a
// rewind must not fire the stages of the events it re-applies).
class [[whizbang::fire_at(whizbang::Stage::PostPerspectiveInline)]] PostPerspectiveRecorder
    : public whizbang::Receptor<ItemAdded> {
 public:
  void handle(const ItemAdded& event);
  static std::vector<std::string> fired();
  static void clear();
};

inline constexpr std::string_view kTrail = "psync::TrailPerspective";

}  // namespace psync
