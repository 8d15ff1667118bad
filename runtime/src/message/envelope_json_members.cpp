// An object's members by name (envelope_json_parts.hpp, Members): open addressing over the
// member positions, the keys hashed once when the reader starts on the object.
#include <cstring>

#include "envelope_json_parts.hpp"

namespace whizbang::envelope_json {

Members::Members(const Value& object) : object_(object) {
  if (!object.IsObject() || object.MemberCount() > kIndexed) return;
  std::memset(slots_, 0, sizeof slots_);
  const auto begin = object.MemberBegin();
  for (rapidjson::SizeType i = 0; i < object.MemberCount(); ++i) {
    std::size_t slot = slot_of(key_text(begin[i].name));
    while (slots_[slot] != 0) slot = (slot + 1) & (kSlots - 1);
    slots_[slot] = static_cast<std::uint8_t>(i + 1);
  }
  indexed_ = true;
}

const Value* Members::find(std::string_view name) const {
  if (!indexed_) return object_.IsObject() ? member(object_, name) : nullptr;
  const auto begin = object_.MemberBegin();
  // Members were placed in order, so among equal keys the first is met first.
  for (std::size_t slot = slot_of(name); slots_[slot] != 0; slot = (slot + 1) & (kSlots - 1)) {
    const auto& found = begin[slots_[slot] - 1];
    if (same_name(key_text(found.name), name)) return &found.value;
  }
  return nullptr;
}

const Value* Members::find(std::string_view name, std::string_view long_name) const {
  if (const Value* by_name = find(name)) return by_name;
  return find(long_name);
}

}  // namespace whizbang::envelope_json
