// An object's members by name (envelope_json_parts.hpp, Members): a cursor in the writer's
// order and a mask of the keys' hashes, made when the reader starts on the object.
#include "envelope_json_parts.hpp"

namespace whizbang::envelope_json {

Members::Members(const Value& object) : object_(object) {
  if (!object.IsObject() || object.MemberCount() > kMasked) return;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    mask_ |= bit_of(key_text(it->name));
  }
  masked_ = true;
}

const Value* Members::walk(std::string_view name) const {
  if (!object_.IsObject()) return nullptr;
  const auto begin = object_.MemberBegin();
  for (rapidjson::SizeType i = 0; i < object_.MemberCount(); ++i) {
    if (same_name(key_text(begin[i].name), name)) {
      next_ = i + 1;
      return &begin[i].value;
    }
  }
  return nullptr;
}

}  // namespace whizbang::envelope_json
