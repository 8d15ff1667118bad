// Circuit breakers as a process's flags give them (`--circuit-breaker RULE=SPEC`,
// WHIZBANG_CIRCUIT_BREAKER; docs/guide/11-failures.md, "Circuit breakers"): each rule and key
// read as written, mistakes refused with what is wrong.
#include <gtest/gtest.h>
#include <whizbang/host/service_runner_circuit_breaker.hpp>

#include <string>
#include <utility>
#include <vector>

#include "support/runner_config_args.hpp"

namespace circuit_breaker_spec_test {
namespace {

using namespace std::chrono_literals;
using whizbang::CircuitBreakerKind;
using whizbang_test::parse_runner_args;
using whizbang_test::ScopedEnv;

TEST(CircuitBreakerSpecTests, EveryRuleAndKey_ReadAsWritten) {
  const std::vector<std::string> specs = {
      "default=failures=7,window=2m,cool-down=10s,max-cool-down=1h,factor=3",
      "receptors=failures=2",
      "receptor:ChargeCardHandler=failures=3,window=30s,cool-down=500ms",
      "destination:audit=off",
  };
  auto rules = whizbang::parse_circuit_breaker_specs(specs);
  ASSERT_TRUE(rules.ok()) << rules.status();
  const auto fallback = rules->options_for(CircuitBreakerKind::Destination, "shop.orders");
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ(fallback->failure_threshold, 7);
  EXPECT_EQ(fallback->window, 2min);
  EXPECT_EQ(fallback->cool_down.initial, 10s);
  EXPECT_EQ(fallback->cool_down.cap, 1h);
  EXPECT_EQ(fallback->cool_down.factor, 3);
  const auto charge = rules->options_for(CircuitBreakerKind::Receptor, "ChargeCardHandler");
  ASSERT_TRUE(charge.has_value());
  EXPECT_EQ(charge->failure_threshold, 3);
  EXPECT_EQ(charge->window, 30s);
  EXPECT_EQ(charge->cool_down.initial, 500ms);
  EXPECT_EQ(charge->cool_down.cap, 5min) << "not given: the default cap";
  EXPECT_EQ(rules->options_for(CircuitBreakerKind::Receptor, "Other")->failure_threshold, 2);
  EXPECT_FALSE(rules->options_for(CircuitBreakerKind::Destination, "audit").has_value());
  // A cool-down past the default cap lifts the cap with it.
  auto long_one =
      whizbang::parse_circuit_breaker_specs(std::vector<std::string>{"default=cool-down=10m"});
  ASSERT_TRUE(long_one.ok());
  EXPECT_EQ(long_one->options_for(CircuitBreakerKind::Receptor, "R")->cool_down.cap, 10min);
}

TEST(CircuitBreakerSpecTests, Mistakes_AreRefusedSayingWhat) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"default", "not RULE=SPEC"},
      {"", "not RULE=SPEC"},
      {"default=", "no SPEC"},
      {"sometimes=failures=1", "the rule is default, receptors"},
      {"receptor:=failures=1", "the rule is default"},
      {"destination:=off", "the rule is default"},
      {"default=failures=0", "'0' is not a valid failures"},
      {"default=failures=-3", "'-3' is not a valid failures"},
      {"default=failures=many", "'many' is not a valid failures"},
      {"default=window=5", "'5' is not a valid window"},
      {"default=window=0s", "'0s' is not a valid window"},
      {"default=cool-down=-1s", "'-1s' is not a valid cool-down"},
      {"default=factor=0.5", "'0.5' is not a valid factor"},
      {"default=factor=1000", "'1000' is not a valid factor"},
      {"default=cool-down=10m,max-cool-down=1m", "max-cool-down is below cool-down"},
      {"default=threshold=3", "unknown key 'threshold'"},
      {"default=failures", "'failures' is not KEY=VALUE"},
      {"default=failures=3,,window=1m", "'' is not KEY=VALUE"},
  };
  for (const auto& [spec, why] : cases) {
    whizbang::CircuitBreakerRules rules;
    const absl::Status status = whizbang::add_circuit_breaker_spec(spec, rules);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_NE(std::string(status.message()).find(why), std::string::npos)
        << spec << ": " << status.message();
    EXPECT_NE(std::string(status.message()).find("--circuit-breaker"), std::string::npos);
    EXPECT_FALSE(rules.any(CircuitBreakerKind::Receptor))
        << spec << ": a refused rule adds nothing";
  }
}

TEST(CircuitBreakerSpecTests, RunnerFlagsAndEnvironment_AreReadAndCheckedAtStart) {
  const ScopedEnv no_env("WHIZBANG_CIRCUIT_BREAKER", nullptr);
  auto config = parse_runner_args({"--service", "orders", "--circuit-breaker", "default=failures=3",
                                   "--circuit-breaker=receptor:R=off"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->circuit_breakers,
            (std::vector<std::string>{"default=failures=3", "receptor:R=off"}));
  auto bad = parse_runner_args({"--service", "orders", "--circuit-breaker", "default=failures=x"});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(bad.status().message()).find("--circuit-breaker"), std::string::npos);
  {
    const ScopedEnv env("WHIZBANG_CIRCUIT_BREAKER", "default=failures=4 ; destinations=off");
    auto from_env = parse_runner_args({"--service", "orders"});
    ASSERT_TRUE(from_env.ok()) << from_env.status();
    EXPECT_EQ(from_env->circuit_breakers,
              (std::vector<std::string>{"default=failures=4", "destinations=off"}));
  }
  {
    const ScopedEnv env("WHIZBANG_CIRCUIT_BREAKER", "nonsense");
    EXPECT_FALSE(parse_runner_args({"--service", "orders"}).ok());
  }
}

}  // namespace
}  // namespace circuit_breaker_spec_test
