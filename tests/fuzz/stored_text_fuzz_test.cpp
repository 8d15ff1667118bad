// The other JSON a service reads besides envelopes, mutated: the scope column of stored rows, the
// event-store row parts the perspective worker reads back (split from an envelope when the event
// is stored), and the guardrail configuration. Each must parse or fail with a status, never crash
// (the sanitized builds run this too), and what the splitter stores must read back as JSON.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "json_mutator.hpp"
#include "store/store_support.hpp"
#include "store_test_support.hpp"
#include "whizbang/exactly_once/guardrails.hpp"
#include "whizbang/internal/bounded_json.hpp"

namespace store_test {
namespace {

using namespace whizbang;

TEST(StoredTextFuzzTests, MutatedScopeColumn_ParsesOrIsIgnored) {
  const std::string sample = store_internal::scope_json(SecurityScope{"user-1", "tenant-9"});
  ASSERT_EQ(store_internal::parse_scope_json(sample), (SecurityScope{"user-1", "tenant-9"}));
  json_fuzz::JsonMutator mutator(json_fuzz::kSeed, {sample, R"({"u":"","t":"\u00fc"})"});
  const std::size_t count = json_fuzz::iterations(20'000);
  std::size_t parsed = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string mutant = mutator.mutate();
    const std::optional<SecurityScope> scope = store_internal::parse_scope_json(mutant);
    if (!scope) continue;
    ++parsed;
    // What parsed round-trips through the column's writer.
    EXPECT_EQ(store_internal::parse_scope_json(store_internal::scope_json(*scope)), scope)
        << mutant;
  }
  std::printf("[ fuzz     ] %zu scope column mutants, %zu parsed\n", count, parsed);
  EXPECT_GT(parsed, 0u);
  EXPECT_LT(parsed, count);
}

TEST(StoredTextFuzzTests, MutatedEnvelope_SplitsIntoEventRowsThatReadBackOrFailsCleanly) {
  const std::string sample = serialize_envelope(full_envelope());
  json_fuzz::JsonMutator mutator(json_fuzz::kSeed, {sample});
  const std::size_t count = json_fuzz::iterations(20'000);
  std::size_t split = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string mutant = mutator.mutate();
    const absl::StatusOr<store_internal::EventParts> parts = store_internal::event_parts(mutant);
    if (!parts.ok()) {
      ASSERT_EQ(parts.status().code(), absl::StatusCode::kInvalidArgument) << parts.status();
      continue;
    }
    ++split;
    // The perspective worker parses both columns back (envelope_from_stored_event).
    rapidjson::Document document;
    ASSERT_FALSE(internal::parse_bounded(parts->event_data, document).IsError()) << mutant;
    ASSERT_FALSE(internal::parse_bounded(parts->metadata, document).IsError()) << mutant;
    ASSERT_TRUE(document.IsObject()) << mutant;
  }
  std::printf("[ fuzz     ] %zu envelope mutants, %zu split into event rows\n", count, split);
  EXPECT_GT(split, 0u);
  EXPECT_LT(split, count);
}

TEST(StoredTextFuzzTests, MutatedGuardrailConfiguration_ParsesOrFailsCleanly) {
  const std::string sample = R"({"Whizbang": {"Guardrails": {
      "ReceptorInvocationTracking": "TrackAndEnforce", "OnDoubleFire": "Warn",
      "PersistInvocations": "Database"}}})";
  ASSERT_TRUE(guardrail_options_from_json(sample).ok());
  json_fuzz::JsonMutator mutator(json_fuzz::kSeed, {sample});
  const std::size_t count = json_fuzz::iterations(20'000);
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string mutant = mutator.mutate();
    const absl::StatusOr<GuardrailOptions> options = guardrail_options_from_json(mutant);
    if (options.ok()) {
      ++accepted;
    } else {
      ASSERT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument) << options.status();
      ASSERT_FALSE(options.status().message().empty());
    }
  }
  std::printf("[ fuzz     ] %zu configuration mutants, %zu accepted\n", count, accepted);
  EXPECT_GT(accepted, 0u);
  EXPECT_LT(accepted, count);
}

}  // namespace
}  // namespace store_test
