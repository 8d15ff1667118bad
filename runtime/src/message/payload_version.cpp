#include "whizbang/message/payload_version.hpp"

#include <charconv>
#include <limits>
#include <string>

#include <rapidjson/document.h>

#include "fmt/format.h"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/message/json_upcast.hpp"

namespace whizbang {

absl::StatusOr<std::uint32_t> parse_payload_version(std::string_view text) {
  std::uint32_t version = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (error != std::errc() || end != text.data() + text.size() || version < 1) {
    return absl::InvalidArgumentError(
        fmt::format("hop metadata {} '{}' is not a payload version (an integer >= 1)",
                    kPayloadVersionKey, text));
  }
  return version;
}

absl::StatusOr<std::uint32_t> payload_version(std::span<const MessageHop> hops) {
  for (auto hop = hops.rbegin(); hop != hops.rend(); ++hop) {
    auto found = hop->metadata.find(std::string(kPayloadVersionKey));
    if (found != hop->metadata.end()) return parse_payload_version(found->second);
  }
  return 1;
}

absl::StatusOr<std::uint32_t> stored_payload_version(std::string_view metadata_json) {
  rapidjson::Document document;
  if (internal::parse_bounded(metadata_json, document).IsError() || !document.IsObject()) {
    return absl::InvalidArgumentError("event metadata is not a JSON object");
  }
  auto hops = document.FindMember("Hops");
  if (hops == document.MemberEnd() || !hops->value.IsArray()) return 1;
  const auto& array = hops->value.GetArray();
  for (rapidjson::SizeType i = array.Size(); i-- > 0;) {
    if (!array[i].IsObject()) continue;
    auto md = array[i].FindMember("md");
    if (md == array[i].MemberEnd()) md = array[i].FindMember("Metadata");
    if (md == array[i].MemberEnd() || !md->value.IsObject()) continue;
    const rapidjson::Value key(rapidjson::StringRef(
        kPayloadVersionKey.data(), static_cast<rapidjson::SizeType>(kPayloadVersionKey.size())));
    auto value = md->value.FindMember(key);
    if (value == md->value.MemberEnd()) continue;
    if (value->value.IsString()) {
      return parse_payload_version(
          std::string_view(value->value.GetString(), value->value.GetStringLength()));
    }
    if (value->value.IsUint() && value->value.GetUint() >= 1) return value->value.GetUint();
    return parse_payload_version("(not a string)");
  }
  return 1;
}

absl::StatusOr<AnyMessage> decode_payload(const MessageTypeInfo& info, const void* rapidjson_value,
                                          std::uint32_t version) {
  if (version == info.version) return info.from_json_value(rapidjson_value);
  if (info.upcast == nullptr || version > info.version) {
    std::string known;
    for (std::uint32_t v = 1; v <= info.version; ++v) {
      if (info.upcast == nullptr && v < info.version) continue;
      if (!known.empty()) known += ", ";
      known += std::to_string(v);
    }
    return internal::unknown_payload_version(info, version, known);
  }
  return info.upcast(rapidjson_value, version);
}

namespace internal {

absl::Status unknown_payload_version(const MessageTypeInfo& info, std::uint32_t version,
                                     std::string_view known) {
  return absl::InvalidArgumentError(fmt::format(
      "{} payload of version {}: this build of {} reads version{} {} (current {}); {}",
      info.wire_name, version, info.cpp_name, known.find(',') == std::string_view::npos ? "" : "s",
      known, info.version,
      version > info.version ? "it was written by newer code: deploy that code here"
                             : "no [[whizbang::upcaster]] chain starts at that version"));
}

}  // namespace internal
}  // namespace whizbang
