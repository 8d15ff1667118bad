// Envelopes for the security scope tests: hops with given scopes, a hop's `sc` as written, and
// hand-written `sc` members put into hops and read back (docs/guide/16-security.md).
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "store_test_support.hpp"
#include "whizbang/message/envelope_json.hpp"

namespace scope_test {

// `values` in order: scope collections compare as sets.
inline std::vector<std::string> sorted(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  return values;
}

using whizbang::Envelope;
using whizbang::HopType;
using whizbang::SecurityScope;

// An envelope whose hops have these scopes (and types), each hop's topic "hop<i>".
inline Envelope envelope_with(std::vector<std::optional<SecurityScope>> scopes,
                              std::vector<HopType> types = {}) {
  Envelope envelope =
      Envelope::create(whizbang::AnyMessage::make(store_test::OrderCreated{"o-1", 1}),
                       store_test::instance("orders"));
  envelope.hops.clear();
  for (std::size_t i = 0; i < scopes.size(); ++i) {
    whizbang::MessageHop hop;
    hop.service_instance = store_test::instance("orders");
    hop.topic = std::string("hop").append(std::to_string(i));
    hop.scope = std::move(scopes[i]);
    if (i < types.size()) hop.type = types[i];
    envelope.hops.push_back(std::move(hop));
  }
  return envelope;
}

// The `sc` of hop `index` in a serialized envelope, compact; "" when the hop has none.
inline std::string sc_of(const std::string& json, rapidjson::SizeType index) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  EXPECT_TRUE(document.IsObject()) << json;
  const rapidjson::Value& hop = document["h"][index];
  auto sc = hop.FindMember("sc");
  if (sc == hop.MemberEnd()) return "";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  sc->value.Accept(writer);
  return buffer.GetString();
}

// The same envelope with hand-written `sc` members put into its hops, read back.
inline absl::StatusOr<Envelope> read_with(std::vector<std::string> scs,
                                          std::vector<HopType> types = {}) {
  std::vector<std::optional<SecurityScope>> none(scs.size());
  std::string json = whizbang::serialize_envelope(envelope_with(std::move(none), std::move(types)));
  for (std::size_t i = 0; i < scs.size(); ++i) {
    if (scs[i].empty()) continue;
    const std::string topic = std::string(R"("to":"hop)").append(std::to_string(i)).append("\"");
    const std::size_t at = json.find(topic);
    EXPECT_NE(at, std::string::npos);
    json.insert(at + topic.size(), std::string(R"(,"sc":)").append(scs[i]));
  }
  return whizbang::deserialize_envelope(json, store_test::resolve);
}

}  // namespace scope_test
