#include "whizbang/exactly_once/guardrails.hpp"

#include <rapidjson/document.h>

#include <array>
#include <utility>

#include "fmt/format.h"
#include "whizbang/internal/bounded_json.hpp"

namespace whizbang {
namespace {

template <class Enum, std::size_t N>
absl::Status read_enum(const rapidjson::Value& section, const char* name,
                       const std::array<std::pair<std::string_view, Enum>, N>& names, Enum& out) {
  if (!section.HasMember(name)) return absl::OkStatus();
  const rapidjson::Value& value = section[name];
  std::string accepted;
  for (const auto& [text, enumerator] : names) {
    if (value.IsString() && text == value.GetString()) {
      out = enumerator;
      return absl::OkStatus();
    }
    accepted += accepted.empty() ? std::string(text) : ", " + std::string(text);
  }
  return absl::InvalidArgumentError(
      fmt::format("Whizbang.Guardrails.{}: expected one of {}", name, accepted));
}

}  // namespace

absl::StatusOr<GuardrailOptions> guardrail_options_from_json(std::string_view config_json) {
  rapidjson::Document document;
  // Bounded, like every JSON this library reads: a configuration file is input too.
  if (const internal::BoundedParseResult parsed = internal::parse_bounded(config_json, document);
      parsed.IsError()) {
    return absl::InvalidArgumentError(fmt::format("guardrail configuration is not valid JSON ({})",
                                                  internal::describe_parse_error(parsed)));
  }
  GuardrailOptions options;
  if (!document.IsObject() || !document.HasMember("Whizbang")) return options;
  const rapidjson::Value& whizbang = document["Whizbang"];
  if (!whizbang.IsObject() || !whizbang.HasMember("Guardrails")) return options;
  const rapidjson::Value& section = whizbang["Guardrails"];
  if (!section.IsObject()) {
    return absl::InvalidArgumentError("Whizbang.Guardrails must be an object");
  }
  using T = ReceptorInvocationTracking;
  constexpr std::array<std::pair<std::string_view, T>, 3> kTracking{
      {{"Off", T::Off}, {"Track", T::Track}, {"TrackAndEnforce", T::TrackAndEnforce}}};
  constexpr std::array<std::pair<std::string_view, OnDoubleFire>, 2> kOnDoubleFire{
      {{"Warn", OnDoubleFire::Warn}, {"Throw", OnDoubleFire::Throw}}};
  constexpr std::array<std::pair<std::string_view, PersistInvocations>, 2> kPersist{
      {{"Envelope", PersistInvocations::Envelope}, {"Database", PersistInvocations::Database}}};
  if (auto s = read_enum(section, "ReceptorInvocationTracking", kTracking, options.tracking);
      !s.ok()) {
    return s;
  }
  if (auto s = read_enum(section, "OnDoubleFire", kOnDoubleFire, options.on_double_fire); !s.ok()) {
    return s;
  }
  if (auto s = read_enum(section, "PersistInvocations", kPersist, options.persist); !s.ok()) {
    return s;
  }
  return options;
}

DuplicateReceptorFireException::DuplicateReceptorFireException(std::string receptor_id,
                                                               MessageId message_id, Stage stage,
                                                               std::string prior_service,
                                                               Stage prior_stage)
    : PermanentRuntimeError(fmt::format(
          "receptor {} already fired for message {} (at {} in service '{}'); refusing to fire "
          "again at {}",
          receptor_id, message_id.to_string(), to_string(prior_stage), prior_service,
          to_string(stage))),
      receptor_id_(std::move(receptor_id)),
      message_id_(message_id),
      stage_(stage),
      prior_service_(std::move(prior_service)),
      prior_stage_(prior_stage) {}

}  // namespace whizbang
