// An object's members by name (envelope_json_parts.hpp, Members): a cursor in the writer's
// order and a mask of the keys' hashes.
#include "envelope_json_parts.hpp"

namespace whizbang::envelope_json {

std::uint64_t Members::make_mask() const {
  std::uint64_t mask = 1;  // never 0 once made, even for an object with no members
  for (auto it = object_.MemberBegin(); it != object_.MemberEnd(); ++it) {
    mask |= bit_of(key_text(it->name));
  }
  return mask;
}

const Value* Members::walk(std::string_view name) const {
  const std::ptrdiff_t at = member_index(object_, name);
  if (at < 0) return nullptr;
  next_ = static_cast<rapidjson::SizeType>(at) + 1;
  return &object_.MemberBegin()[at].value;
}

}  // namespace whizbang::envelope_json
