// Loads tests/data/derived-identity.json, the reference vectors for derived ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace whizbang::testing {

struct IdentityVector {
  std::string kind;    // "emission" or "composite_child"
  std::string source;  // source or composite id
  std::string service;
  std::optional<std::string> handler;
  std::string type;
  std::int64_t ordinal = 0;
  std::string canonical;
  std::string expected;
};

std::vector<IdentityVector> load_identity_vectors();

}  // namespace whizbang::testing
