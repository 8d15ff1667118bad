// The process runner reads OpenTelemetry's standard variables where its own flags and WHIZBANG_*
// variables leave a setting unset (docs/guide/18-tracing.md, "In the process runner"):
// flag > WHIZBANG_* > OTEL_*_TRACES_* > OTEL_*.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "support/runner_config_args.hpp"
#include "whizbang/host/service_runner.hpp"

namespace runner_otel_env_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

using whizbang_test::ScopedEnv;

absl::StatusOr<whizbang::ServiceRunnerConfig> parse(std::vector<const char*> args) {
  return whizbang_test::parse_runner_args(std::move(args));
}

TEST(RunnerOtelEnvTests, OtelVariablesSetEndpointHeadersServiceAndRatio) {
  ScopedEnv endpoint("OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4318");
  ScopedEnv headers("OTEL_EXPORTER_OTLP_HEADERS", "api-key=s%3Dcret,x-team=payments");
  ScopedEnv service("OTEL_SERVICE_NAME", "checkout");
  ScopedEnv ratio("OTEL_TRACES_SAMPLER_ARG", "0.25");
  auto config = parse({});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->service_name, "checkout");
  EXPECT_EQ(config->otlp_endpoint, "http://otel-collector:4318");
  EXPECT_EQ(config->otlp_headers, (Headers{{"api-key", "s=cret"}, {"x-team", "payments"}}));
  EXPECT_EQ(config->trace_sampling, 0.25);
}

TEST(RunnerOtelEnvTests, TracesSpecificVariablesWinOverTheGeneralOnes) {
  ScopedEnv endpoint("OTEL_EXPORTER_OTLP_ENDPOINT", "http://general:4318");
  ScopedEnv traces("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/v1/traces");
  ScopedEnv headers("OTEL_EXPORTER_OTLP_HEADERS", "from=general");
  ScopedEnv traces_headers("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "from=traces");
  auto config = parse({"--service", "orders"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->otlp_endpoint, "http://traces:4318/v1/traces");
  EXPECT_EQ(config->otlp_headers, (Headers{{"from", "traces"}}));
}

TEST(RunnerOtelEnvTests, WhizbangVariablesWinOverOtelOnes) {
  ScopedEnv otel_endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://otel:4318");
  ScopedEnv otel_headers("OTEL_EXPORTER_OTLP_HEADERS", "from=otel");
  ScopedEnv otel_service("OTEL_SERVICE_NAME", "otel-name");
  ScopedEnv otel_ratio("OTEL_TRACES_SAMPLER_ARG", "0.5");
  ScopedEnv endpoint("WHIZBANG_OTLP_ENDPOINT", "http://whizbang:4318");
  ScopedEnv headers("WHIZBANG_OTLP_HEADERS", "from=whizbang");
  ScopedEnv service("WHIZBANG_SERVICE", "whizbang-name");
  ScopedEnv ratio("WHIZBANG_TRACE_SAMPLING", "0.75");
  auto config = parse({});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->service_name, "whizbang-name");
  EXPECT_EQ(config->otlp_endpoint, "http://whizbang:4318");
  EXPECT_EQ(config->otlp_headers, (Headers{{"from", "whizbang"}}));
  EXPECT_EQ(config->trace_sampling, 0.75);
}

TEST(RunnerOtelEnvTests, FlagsWinOverOtelVariables) {
  ScopedEnv otel_endpoint("OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel:4318");
  ScopedEnv otel_headers("OTEL_EXPORTER_OTLP_HEADERS", "from=otel");
  ScopedEnv otel_service("OTEL_SERVICE_NAME", "otel-name");
  ScopedEnv otel_ratio("OTEL_TRACES_SAMPLER_ARG", "0.5");
  auto config = parse({"--service", "flag-name", "--otlp-endpoint", "http://flag:4318",
                       "--otlp-header", "from=flag", "--trace-sampling", "0.125"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->service_name, "flag-name");
  EXPECT_EQ(config->otlp_endpoint, "http://flag:4318");
  EXPECT_EQ(config->otlp_headers, (Headers{{"from", "flag"}}));
  EXPECT_EQ(config->trace_sampling, 0.125);
}

TEST(RunnerOtelEnvTests, SamplerArgIsReadOnlyForARatioSampler) {
  ScopedEnv ratio("OTEL_TRACES_SAMPLER_ARG", "0.5");
  {
    ScopedEnv sampler("OTEL_TRACES_SAMPLER", "parentbased_traceidratio");
    auto config = parse({"--service", "orders"});
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_EQ(config->trace_sampling, 0.5);
  }
  {
    ScopedEnv sampler("OTEL_TRACES_SAMPLER", "always_on");
    auto config = parse({"--service", "orders"});
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_EQ(config->trace_sampling, 1.0) << "another sampler's argument means something else";
  }
}

TEST(RunnerOtelEnvTests, BadOtelValuesAreRefusedNamingTheVariable) {
  {
    ScopedEnv ratio("OTEL_TRACES_SAMPLER_ARG", "most");
    auto config = parse({"--service", "orders"});
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.status().message().find("OTEL_TRACES_SAMPLER_ARG"), std::string::npos);
  }
  {
    ScopedEnv headers("OTEL_EXPORTER_OTLP_HEADERS", "no-equals-sign");
    auto config = parse({"--service", "orders"});
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.status().message().find("OTEL_EXPORTER_OTLP_HEADERS"), std::string::npos);
  }
}

TEST(RunnerOtelEnvTests, NoServiceNameAnywhere_TheErrorNamesOtelServiceNameToo) {
  auto config = parse({});
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("OTEL_SERVICE_NAME"), std::string::npos);
}

}  // namespace
}  // namespace runner_otel_env_test
