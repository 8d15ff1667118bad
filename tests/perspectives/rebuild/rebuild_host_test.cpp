// PerspectiveVersionHostTests: a host started with a perspective whose stored models were built
// by another version refuses (naming the command), runs a requested rebuild first, or rebuilds
// by policy. PerspectiveCliTests: `whizbang perspective rebuild` is served by a running host.
#include <gtest/gtest.h>

#include <whizbang/host/service_host.hpp>

#include "cli/commands.hpp"
#include "rebuild_fixture.hpp"

namespace rebuild {
namespace {

// The test registry with CartPerspective at `version` (what [[whizbang::version(N)]] generates).
class VersionedRegistry {
 public:
  explicit VersionedRegistry(std::uint32_t version)
      : perspectives_(test_registry().perspectives().begin(), test_registry().perspectives().end()),
        registry_(test_registry()) {
    for (whizbang::PerspectiveInfo& info : perspectives_) info.version = version;
    registry_ = whizbang::Registry(test_registry().name(), test_registry().messages(),
                                   test_registry().receptors(), nullptr, perspectives_);
  }
  const whizbang::Registry& registry() const { return registry_; }

 private:
  std::vector<whizbang::PerspectiveInfo> perspectives_;
  whizbang::Registry registry_;
};

absl::StatusOr<std::unique_ptr<whizbang::ServiceHost>> start_host(
    RebuildFixture& f, const whizbang::Registry& registry,
    whizbang::PerspectiveVersionPolicy policy,
    std::shared_ptr<whizbang::Metrics> metrics = nullptr) {
  whizbang::HostOptions options;
  options.metrics = std::move(metrics);
  options.service_name = "carts";
  options.store = f.store.get();
  options.poll_interval = std::chrono::milliseconds(20);
  options.perspective_version_policy = policy;
  options.perspective_rebuild.batch_streams = 8;
  return whizbang::ServiceHost::create(registry, f.services, std::move(options));
}

std::uint32_t stored_version(RebuildFixture& f) {
  auto versions = f.store->perspective_versions();
  EXPECT_TRUE(versions.ok() && versions->size() == 1);
  return versions.ok() && versions->size() == 1 ? versions->front().version : 0;
}

TEST(PerspectiveVersionHostTests, StoredModelsOfAnotherVersion_RefusesNamingTheCommand) {
  RebuildFixture f(Backend::Sqlite);
  f.append_streams(10, 3);
  f.apply_live();  // models, no version row: version 1
  VersionedRegistry v2(2);
  auto refused = start_host(f, v2.registry(), whizbang::PerspectiveVersionPolicy::Refuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status())) << refused.status();
  const std::string message(refused.status().message());
  EXPECT_NE(message.find("whizbang perspective rebuild --store"), std::string::npos) << message;
  EXPECT_NE(message.find(kCart), std::string::npos) << message;
  EXPECT_NE(message.find("version 1"), std::string::npos) << message;

  // The command's request: the next start runs it first.
  f.settings.stamp = 2;
  whizbang::PerspectiveRebuildRow request;
  request.perspective_name = kCart;
  ASSERT_TRUE(f.store->request_perspective_rebuild(request).ok());
  auto host = start_host(f, v2.registry(), whizbang::PerspectiveVersionPolicy::Refuse);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(stored_version(f), 2u);
  for (const auto& [stream, json] : f.models()) {
    EXPECT_NE(json.find("\"stamp\":2"), std::string::npos) << json;
  }
}

TEST(PerspectiveVersionHostTests, RebuildPolicy_RebuildsBlueGreenAndStarts) {
  RebuildFixture f(Backend::Sqlite);
  f.append_streams(10, 3);
  f.apply_live();
  const auto live = f.models();
  {
    // A fresh start records the version; the same version starts as it is.
    auto host = start_host(f, test_registry(), whizbang::PerspectiveVersionPolicy::Refuse);
    ASSERT_TRUE(host.ok()) << host.status();
    EXPECT_EQ(stored_version(f), 1u);
  }
  VersionedRegistry v2(2);
  auto host = start_host(f, v2.registry(), whizbang::PerspectiveVersionPolicy::Rebuild);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(stored_version(f), 2u);
  EXPECT_EQ(f.models(), live);  // same projection code: same models
}

TEST(PerspectiveCliTests, RebuildRequest_IsServedByARunningHost_WithProgressAndStatus) {
  RebuildFixture f(Backend::Sqlite);
  f.append_streams(40, 5);
  f.apply_live();
  const auto live = f.models();
  auto metrics = std::make_shared<whizbang::InMemoryMetrics>();
  auto host = start_host(f, test_registry(), whizbang::PerspectiveVersionPolicy::Refuse, metrics);
  ASSERT_TRUE(host.ok()) << host.status();
  ASSERT_TRUE((*host)->start().ok());

  std::ostringstream out, err;
  const int code = whizbang::cli::run_cli(
      {"perspective", "rebuild", "--store", f.location(), kCart, "--timeout", "60"}, {out, err});
  (*host)->stop();
  EXPECT_EQ(code, 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("requested rebuild of " + kCart), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(kCart + " done: 200/200 events (100.0%)"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("events/s, ETA"), std::string::npos) << out.str();
  EXPECT_EQ(f.models(), live);
  EXPECT_EQ(metrics->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                             whizbang::metric_names::kPerspectiveRebuildEvents,
                             {{whizbang::metric_names::kPerspectiveTag, kCart}}),
            200);
  auto gauges = whizbang::perspective_prometheus_text(*f.store);
  ASSERT_TRUE(gauges.ok());
  EXPECT_NE(
      gauges->find("whizbang_perspective_rebuild_progress_ratio{perspective=\"" + kCart + "\"} 1"),
      std::string::npos)
      << *gauges;

  std::ostringstream status_out, status_err;
  ASSERT_EQ(whizbang::cli::run_cli({"perspective", "status", "--store", f.location()},
                                   {status_out, status_err}),
            0)
      << status_err.str();
  EXPECT_NE(status_out.str().find("PERSPECTIVE"), std::string::npos) << status_out.str();
  EXPECT_NE(status_out.str().find(kCart), std::string::npos) << status_out.str();
  EXPECT_NE(status_out.str().find("done"), std::string::npos) << status_out.str();

  std::ostringstream json_out, json_err;
  ASSERT_EQ(whizbang::cli::run_cli({"perspective", "status", "--store", f.location(), "--json"},
                                   {json_out, json_err}),
            0);
  EXPECT_NE(json_out.str().find("\"pending_events\": 0"), std::string::npos) << json_out.str();
  EXPECT_NE(json_out.str().find("\"version\": 1"), std::string::npos) << json_out.str();
}

TEST(PerspectiveCliTests, FailedRebuild_ExitsNonZeroWithTheError) {
  RebuildFixture f(Backend::Sqlite);
  f.append_streams(3, 2);
  // No host knows this perspective: nobody claims it; the wait times out.
  std::ostringstream out, err;
  const int code = whizbang::cli::run_cli(
      {"perspective", "rebuild", "--store", f.location(), "nobody::Knows", "--timeout", "1"},
      {out, err});
  EXPECT_EQ(code, 1);
  EXPECT_NE(err.str().find("still requested"), std::string::npos) << err.str();
  std::ostringstream bad_out, bad_err;
  EXPECT_EQ(whizbang::cli::run_cli({"perspective", "rebuild", "--store", f.location(), kCart,
                                    "--streams", "not-a-uuid"},
                                   {bad_out, bad_err}),
            2);
}

}  // namespace
}  // namespace rebuild
