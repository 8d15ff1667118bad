// envelope_json::Members, the envelope reader's member lookup (envelope_json_parts.hpp): a
// cursor in the writer's order, then a mask of the keys' hashes, then a walk. Whatever order a
// reader asks in, and however often, it gets what a walk over the members would give.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "message/envelope_json_parts.hpp"
#include "whizbang/internal/bounded_json.hpp"

namespace {

using whizbang::envelope_json::Members;

// `names` as a JSON object whose values are their positions.
std::string object_of(const std::vector<std::string>& names) {
  std::string json = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    json += (i == 0 ? "\"" : ",\"") + names[i] + "\":" + std::to_string(i);
  }
  return json + "}";
}

TEST(EnvelopeMembersTests, AnyOrderAnyRepeat_FindsWhatAWalkFinds) {
  // An empty object, a hop's names, an empty key among short ones, sixteen keys (the most the
  // mask serves) and seventeen (walked).
  const std::vector<std::vector<std::string>> objects = {
      {},
      {"ty", "ca", "co", "si", "ts"},
      {"", "a", "ab", "abc"},
      {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "ka", "kb", "kc", "kd", "ke",
       "kf"},
      {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "ka", "kb", "kc", "kd", "ke",
       "kf", "kg"},
  };
  const std::vector<std::string> absent = {"zz", "b", "abcd", "Type", "k", "kz", "t"};
  for (const std::vector<std::string>& names : objects) {
    rapidjson::Document document;
    const std::string json = object_of(names);
    ASSERT_FALSE(whizbang::internal::parse_bounded(json, document).IsError()) << json;
    // Each order: as written, backwards, every name twice in a row, then every name again.
    std::vector<std::string> asked = names;
    asked.insert(asked.end(), names.rbegin(), names.rend());
    for (const std::string& name : names) asked.insert(asked.end(), {name, name});
    asked.insert(asked.end(), absent.begin(), absent.end());
    asked.insert(asked.end(), names.begin(), names.end());
    const Members members(document);
    for (const std::string& name : asked) {
      const rapidjson::Value* found = members.find(name);
      // rapidjson's own lookup: independent of the walk Members falls back on.
      const auto member = document.FindMember(rapidjson::Value(
          rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
      const rapidjson::Value* walked = member == document.MemberEnd() ? nullptr : &member->value;
      ASSERT_EQ(found, walked) << json << " asked for \"" << name << "\"";
    }
  }
}

}  // namespace
