#include "vectors.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <rapidjson/document.h>

namespace whizbang::testing {

std::vector<IdentityVector> load_identity_vectors() {
  const std::string path = std::string(WHIZBANG_TEST_DATA_DIR) + "/derived-identity.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document doc;
  doc.Parse(text.str().c_str());
  if (doc.HasParseError() || !doc.HasMember("vectors")) {
    throw std::runtime_error("malformed " + path);
  }
  std::vector<IdentityVector> out;
  for (const auto& v : doc["vectors"].GetArray()) {
    IdentityVector vec;
    vec.kind = v["kind"].GetString();
    const bool composite = vec.kind == "composite_child";
    vec.source = v[composite ? "composite" : "source"].GetString();
    if (!composite) {
      vec.service = v["service"].GetString();
      if (!v["handler"].IsNull()) vec.handler = v["handler"].GetString();
    }
    vec.type = v["type"].GetString();
    vec.ordinal = v["ordinal"].GetInt64();
    vec.canonical = v["canonical"].GetString();
    vec.expected = v["expected"].GetString();
    out.push_back(std::move(vec));
  }
  return out;
}

}  // namespace whizbang::testing
