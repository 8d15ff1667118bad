// The process runner's tracing settings (docs/guide/14-running-services.md,
// docs/guide/18-tracing.md): --otlp-endpoint, --otlp-header, --trace-sampling and their
// environment variables; a runner with an endpoint exports its host's spans, naming the service
// and instance, and sends what is queued when it stops.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "runner_receptors.hpp"
#include "span_samples.hpp"
#include "support/runner_config_args.hpp"
#include "trace_receiver.hpp"
#include "whizbang/host/service_runner.hpp"
#include "whizbang_registry.hpp"

namespace runner_tracing_test {
namespace {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;

using whizbang_test::ScopedEnv;

absl::StatusOr<whizbang::ServiceRunnerConfig> parse(std::vector<const char*> args) {
  return whizbang_test::parse_runner_args(std::move(args));
}

TEST(RunnerTracingConfigTests, WithoutTracingFlagsNothingIsExported) {
  auto config = parse({"--service", "orders"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->otlp_endpoint, "");
  EXPECT_TRUE(config->otlp_headers.empty());
  EXPECT_EQ(config->trace_sampling, 1.0);
}

TEST(RunnerTracingConfigTests, FlagsSetEndpointRepeatedHeadersAndSampling) {
  auto config =
      parse({"--service", "orders", "--otlp-endpoint", "http://collector:4318", "--otlp-header",
             "authorization=Bearer a=b", "--otlp-header=x-tenant=acme", "--trace-sampling=0.25"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->otlp_endpoint, "http://collector:4318");
  EXPECT_EQ(config->otlp_headers, (Headers{{"authorization", "Bearer a=b"}, {"x-tenant", "acme"}}));
  EXPECT_EQ(config->trace_sampling, 0.25);
}

TEST(RunnerTracingConfigTests, EnvironmentSetsThemAndHeadersArePercentDecoded) {
  ScopedEnv endpoint("WHIZBANG_OTLP_ENDPOINT", "https://otlp.example:4318");
  ScopedEnv headers("WHIZBANG_OTLP_HEADERS", "api-key=s%2Ccret, x-team = payments ");
  ScopedEnv sampling("WHIZBANG_TRACE_SAMPLING", "0.5");
  auto config = parse({"--service", "orders"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->otlp_endpoint, "https://otlp.example:4318");
  EXPECT_EQ(config->otlp_headers, (Headers{{"api-key", "s,cret"}, {"x-team", "payments"}}));
  EXPECT_EQ(config->trace_sampling, 0.5);
}

TEST(RunnerTracingConfigTests, FlagsWinOverTheEnvironment) {
  ScopedEnv endpoint("WHIZBANG_OTLP_ENDPOINT", "http://from-env:4318");
  ScopedEnv headers("WHIZBANG_OTLP_HEADERS", "from=env");
  ScopedEnv sampling("WHIZBANG_TRACE_SAMPLING", "0.5");
  auto config = parse({"--service", "orders", "--otlp-endpoint", "http://from-flag:4318",
                       "--otlp-header", "from=flag", "--trace-sampling", "0"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->otlp_endpoint, "http://from-flag:4318");
  EXPECT_EQ(config->otlp_headers, (Headers{{"from", "flag"}}));
  EXPECT_EQ(config->trace_sampling, 0.0);
}

TEST(RunnerTracingConfigTests, BadSamplingAndBadHeadersAreRefusedWithTheirFlag) {
  for (const char* ratio : {"1.5", "-0.1", "half", "nan"}) {
    auto config = parse({"--service", "orders", "--trace-sampling", ratio});
    ASSERT_FALSE(config.ok()) << ratio;
    EXPECT_NE(config.status().message().find("--trace-sampling"), std::string::npos);
  }
  auto no_equals = parse({"--service", "orders", "--otlp-header", "authorization"});
  ASSERT_FALSE(no_equals.ok());
  EXPECT_NE(no_equals.status().message().find("--otlp-header"), std::string::npos);
  ScopedEnv headers("WHIZBANG_OTLP_HEADERS", "=value");
  auto empty_name = parse({"--service", "orders"});
  ASSERT_FALSE(empty_name.ok());
  EXPECT_NE(empty_name.status().message().find("WHIZBANG_OTLP_HEADERS"), std::string::npos);
}

TEST(RunnerTracingTests, ARunnerWithAnEndpointExportsItsHostsSpansAndFlushesThemOnStop) {
  auto receiver = whizbang::TraceReceiver::start();
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  runner_test::PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<runner_test::PingCounter>(counter);
  whizbang::ServiceRunnerConfig config;
  config.service_name = "orders";
  config.otlp_endpoint = (*receiver)->endpoint();
  config.otlp_headers = {{"authorization", "Bearer sesame"}};
  config.trace_sampling = 0.125;
  auto runner = whizbang::ServiceRunner::start(
      whizbang::generated::runner_test_receptors::registry(), services, config);
  ASSERT_TRUE(runner.ok()) << runner.status();
  ASSERT_NE((*runner)->span_sink(), nullptr);
  EXPECT_EQ((*runner)->host().options().span_sink.get(), (*runner)->span_sink());
  EXPECT_EQ((*runner)->host().options().trace_sampling_ratio, 0.125);

  // A span as the host's tracer would end it. stop() returns once it is sent (the exporter's
  // own delay, 1 s, has most likely not passed yet: without the flush on stop it would be
  // missing below).
  (*runner)->span_sink()->on_end(tracing_test::full_span());
  (*runner)->stop();
  const auto spans = (*receiver)->spans();
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].service, "orders");
  const auto& attributes = spans[0].resource.attributes;
  const auto instance = std::find_if(attributes.begin(), attributes.end(),
                                     [](const auto& a) { return a.key == "service.instance.id"; });
  ASSERT_NE(instance, attributes.end());
  EXPECT_EQ(std::get<std::string>(instance->value).size(), 36u);  // the instance's UUID
  const auto headers = (*receiver)->last_headers();
  EXPECT_NE(std::find(headers.begin(), headers.end(),
                      std::pair<std::string, std::string>("authorization", "Bearer sesame")),
            headers.end());
}

TEST(RunnerTracingTests, AnEndpointThatIsNotHttpFailsTheStart) {
  runner_test::PingCounter counter;
  whizbang::ServiceRegistry services;
  services.add<runner_test::PingCounter>(counter);
  whizbang::ServiceRunnerConfig config;
  config.service_name = "orders";
  config.otlp_endpoint = "collector:4318";
  auto runner = whizbang::ServiceRunner::start(
      whizbang::generated::runner_test_receptors::registry(), services, config);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("collector:4318"), std::string::npos);
}

}  // namespace
}  // namespace runner_tracing_test
