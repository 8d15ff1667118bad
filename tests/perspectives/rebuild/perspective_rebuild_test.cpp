// PerspectiveRebuildTests: a rebuild replays the event store into models equal to the ones built
// live, fires nothing, completes the live perspective events it covered, and keeps its lease.
#include <gtest/gtest.h>

#include <cstdlib>

#include <whizbang/workers/perspective_rebuild_worker.hpp>

#include "rebuild_fixture.hpp"

namespace rebuild {
namespace {

using whizbang::RebuildMode;
using whizbang::RebuildOptions;

class PerspectiveRebuildTests : public ::testing::TestWithParam<Backend> {
 protected:
  // 100k events over 1k streams on SQLite takes about a minute with the live apply (one
  // transaction per event); WHIZBANG_REBUILD_EVENTS sets the total (1k streams).
  static int per_stream() {
    if (const char* events = std::getenv("WHIZBANG_REBUILD_EVENTS")) {
      return std::max(1, std::atoi(events) / streams());
    }
    return GetParam() == Backend::Sqlite ? 20 : 10;
  }
  // SQLite 20k events, PostgreSQL 2k, memory 500 (its transactions copy the whole state).
  static int streams() {
    return GetParam() == Backend::Sqlite ? 1000 : GetParam() == Backend::Postgres ? 200 : 50;
  }

  // Rows of `table`, on the SQL backends (memory: 0).
  static long rows(whizbang::WorkStore& store, const std::string& table) {
    whizbang::Transaction tx(store);
    auto sql = tx.sql();
    if (!sql.ok()) return 0;
    auto counted = (*sql)->query("SELECT count(*) FROM " + table);
    EXPECT_TRUE(counted.ok()) << counted.status();
    return counted.ok() ? static_cast<long>(*counted->rows.at(0).int64(0)) : -1;
  }
};

TEST_P(PerspectiveRebuildTests, RebuiltModelsEqualTheLiveOnes_BlueGreenThenInPlace) {
  RebuildFixture f(GetParam());
  f.append_streams(streams(), per_stream());
  f.apply_live();
  const auto live = f.models();
  ASSERT_EQ(live.size(), static_cast<std::size_t>(streams()));
  const std::int64_t fires = f.settings.receptor_fires.load();
  ASSERT_GT(fires, 0);  // the live path fires the stage receptors
  const long outbox = rows(*f.store, "wh_outbox");
  const long invocations = rows(*f.store, "wh_receptor_invocations");

  auto rebuilder = f.rebuilder(*f.store);
  for (RebuildMode mode : {RebuildMode::BlueGreen, RebuildMode::InPlace}) {
    const std::int64_t applies = f.settings.applies.load();
    std::vector<whizbang::RebuildProgress> progress;
    RebuildOptions options;
    options.mode = mode;
    options.batch_streams = 64;
    options.progress = [&](const whizbang::RebuildProgress& p) { progress.push_back(p); };
    auto result = rebuilder->rebuild(kCart, options);
    ASSERT_TRUE(result.ok()) << result.status();
    const std::int64_t total = static_cast<std::int64_t>(streams()) * per_stream();
    EXPECT_EQ(result->events_applied, total);
    EXPECT_EQ(result->streams_rebuilt, streams());
    EXPECT_EQ(f.settings.applies.load() - applies, total);
    EXPECT_EQ(f.models(), live) << whizbang::to_string(mode);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back().events_done, total);
    EXPECT_DOUBLE_EQ(progress.back().ratio(), 1.0);
    // Nothing fired, nothing emitted, nothing recorded.
    EXPECT_EQ(f.settings.receptor_fires.load(), fires);
    EXPECT_EQ(rows(*f.store, "wh_outbox"), outbox);
    EXPECT_EQ(rows(*f.store, "wh_receptor_invocations"), invocations);
  }
  // The shadow is gone, the version recorded, the rebuild done.
  auto shadow = f.store->has_perspective_models(whizbang::PerspectiveRebuilder::shadow_name(kCart));
  ASSERT_TRUE(shadow.ok());
  EXPECT_FALSE(*shadow);
  auto rebuilds = f.store->perspective_rebuilds();
  ASSERT_TRUE(rebuilds.ok());
  ASSERT_EQ(rebuilds->size(), 1u);
  EXPECT_EQ(rebuilds->front().status, "done");
  auto versions = f.store->perspective_versions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 1u);
  EXPECT_EQ(versions->front().version, 1u);
}

TEST_P(PerspectiveRebuildTests, ReceptorOptedInToRebuilds_FiresPerEvent_AndEmitsNothing) {
  RebuildFixture f(GetParam());
  f.append_streams(20, 5);  // one ItemRemoved per stream: what CartAuditor handles
  f.apply_live();
  ASSERT_EQ(f.settings.audits.load(), 20);  // live: once per event
  const std::int64_t watcher_fires = f.settings.receptor_fires.load();
  const auto live = f.models();
  const long outbox = rows(*f.store, "wh_outbox");
  const long invocations = rows(*f.store, "wh_receptor_invocations");
  if (GetParam() != Backend::Memory) {
    ASSERT_GE(outbox, 20) << "live, what CartAuditor returns cascades";
  }

  auto rebuilder = f.rebuilder(*f.store, /*with_stages=*/true);
  for (RebuildMode mode : {RebuildMode::BlueGreen, RebuildMode::InPlace}) {
    const std::int64_t audits = f.settings.audits.load();
    RebuildOptions options;
    options.mode = mode;
    options.batch_streams = 7;
    auto result = rebuilder->rebuild(kCart, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(f.settings.audits.load() - audits, 20) << "once per replayed ItemRemoved";
    EXPECT_EQ(f.settings.receptor_fires.load(), watcher_fires) << "CartWatcher did not opt in";
    EXPECT_EQ(rows(*f.store, "wh_outbox"), outbox) << "a rebuild emits nothing";
    EXPECT_EQ(rows(*f.store, "wh_receptor_invocations"), invocations) << "nor records";
    EXPECT_EQ(f.models(), live);
  }
}

TEST_P(PerspectiveRebuildTests, PendingLiveEventsTheRebuildCovered_AreNotAppliedAgain) {
  RebuildFixture f(GetParam());
  f.append_streams(20, 5);
  f.apply_live();
  // Events the live worker has not applied yet when the rebuild replays them.
  for (const whizbang::Uuid& stream : f.streams) f.append_one(stream);
  auto lag = f.store->perspective_lag();
  ASSERT_TRUE(lag.ok());
  ASSERT_EQ(lag->size(), 1u);
  EXPECT_EQ(lag->front().pending_events, 20);
  auto gauges = whizbang::perspective_prometheus_text(*f.store);
  ASSERT_TRUE(gauges.ok()) << gauges.status();
  EXPECT_NE(gauges->find("whizbang_perspective_lag_events{perspective=\"" + kCart + "\"} 20"),
            std::string::npos)
      << *gauges;

  const std::int64_t fires = f.settings.receptor_fires.load();
  auto rebuilder = f.rebuilder(*f.store);
  auto result = rebuilder->rebuild(kCart);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->events_applied, 20 * 6);
  EXPECT_EQ(f.settings.receptor_fires.load(), fires);
  const auto rebuilt = f.models();
  lag = f.store->perspective_lag();
  ASSERT_TRUE(lag.ok());
  EXPECT_TRUE(lag->empty());

  const std::int64_t applies = f.settings.applies.load();
  f.apply_live();  // the gate stages of the covered events run; no apply
  EXPECT_EQ(f.settings.applies.load(), applies);
  EXPECT_EQ(f.models(), rebuilt);
  for (const auto& [stream, json] : rebuilt) {
    EXPECT_NE(json.find("\"events\":6"), std::string::npos) << json;
  }
}

TEST_P(PerspectiveRebuildTests, SelectedStreams_OnlyTheirModelsAreReplaced) {
  RebuildFixture f(GetParam());
  f.append_streams(6, 4);
  f.apply_live();
  f.settings.stamp = 2;
  RebuildOptions options;
  options.streams = {f.streams[1], f.streams[4]};
  for (RebuildMode mode : {RebuildMode::BlueGreen, RebuildMode::InPlace}) {
    options.mode = mode;
    auto result = f.rebuilder(*f.store)->rebuild(kCart, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->streams_rebuilt, 2);
    const auto models = f.models();
    ASSERT_EQ(models.size(), 6u);
    for (std::size_t s = 0; s < f.streams.size(); ++s) {
      const bool selected = s == 1 || s == 4;
      EXPECT_EQ(models.at(f.streams[s]).find("\"stamp\":2") != std::string::npos, selected)
          << whizbang::to_string(mode) << " " << s << ": " << models.at(f.streams[s]);
    }
  }
}

TEST_P(PerspectiveRebuildTests, AnotherInstanceHoldingTheLease_RefusesTheRebuild) {
  RebuildFixture f(GetParam());
  f.append_streams(3, 2);
  whizbang::PerspectiveRebuildRow request;
  request.perspective_name = kCart;
  auto requested = f.store->request_perspective_rebuild(request);
  ASSERT_TRUE(requested.ok() && *requested);
  const std::string names[] = {kCart};
  auto claimed = f.store->claim_perspective_rebuild(names, std::chrono::minutes(5));
  ASSERT_TRUE(claimed.ok() && claimed->has_value());

  auto other =
      GetParam() == Backend::Memory ? nullptr : f.open_store(whizbang::MessageId::mint().uuid());
  whizbang::WorkStore& second = other ? *other : *f.store;
  if (!other) GTEST_SUCCEED() << "memory: one store object";
  if (other) {
    auto refused = f.rebuilder(second)->rebuild(kCart);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(absl::IsUnavailable(refused.status())) << refused.status();
    EXPECT_NE(refused.status().ToString().find(f.instance.to_string()), std::string::npos)
        << refused.status();
  }
  // The holder itself runs it (a restarted instance with the same id takes its lease back).
  auto result = f.rebuilder(*f.store)->rebuild(kCart);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->events_applied, 6);
}

INSTANTIATE_TEST_SUITE_P(Backends, PerspectiveRebuildTests,
                         ::testing::Values(Backend::Memory, Backend::Sqlite, Backend::Postgres),
                         whizbang_test::backend_name);

}  // namespace
}  // namespace rebuild
