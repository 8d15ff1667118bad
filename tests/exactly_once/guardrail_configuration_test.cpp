// GuardrailConfigurationTests: the "Whizbang.Guardrails" configuration section
// (guardrail_options_from_json, whizbang/exactly_once/guardrails.hpp). Moved here from
// tests/lifecycle/receptor_firing_lock_in_test.cpp: they need no generated receptors.
#include <gtest/gtest.h>

#include <string>

#include "whizbang/exactly_once/guardrails.hpp"

namespace whizbang {
namespace {

TEST(GuardrailConfigurationTests, JsonSection_ReadsEverySetting) {
  auto options = whizbang::guardrail_options_from_json(R"({"Whizbang": {"Guardrails": {
      "ReceptorInvocationTracking": "Track", "OnDoubleFire": "Throw",
      "PersistInvocations": "Database"}}})");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->tracking, whizbang::ReceptorInvocationTracking::Track);
  EXPECT_EQ(options->on_double_fire, whizbang::OnDoubleFire::Throw);
  EXPECT_EQ(options->persist, whizbang::PersistInvocations::Database);
}

TEST(GuardrailConfigurationTests, Defaults_AreTrackAndEnforceWarnEnvelope) {
  const whizbang::GuardrailOptions defaults;
  EXPECT_EQ(defaults.tracking, whizbang::ReceptorInvocationTracking::TrackAndEnforce);
  EXPECT_EQ(defaults.on_double_fire, whizbang::OnDoubleFire::Warn);
  EXPECT_EQ(defaults.persist, whizbang::PersistInvocations::Envelope);
  auto empty = whizbang::guardrail_options_from_json("{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->tracking, whizbang::ReceptorInvocationTracking::TrackAndEnforce);
}

TEST(GuardrailConfigurationTests, BadValues_AreClearErrors) {
  auto bad = whizbang::guardrail_options_from_json(
      R"({"Whizbang": {"Guardrails": {"OnDoubleFire": "Explode"}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("OnDoubleFire"), std::string::npos);
  EXPECT_NE(std::string(bad.status().message()).find("Warn, Throw"), std::string::npos);
  EXPECT_FALSE(whizbang::guardrail_options_from_json("{not json").ok());
}

TEST(GuardrailConfigurationTests, DeeplyNestedConfiguration_IsAnErrorNotACrash) {
  const std::string nested = std::string(200'000, '[') + std::string(200'000, ']');
  auto options = whizbang::guardrail_options_from_json(nested);
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace whizbang
