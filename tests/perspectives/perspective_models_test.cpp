// QueryingModels: a perspective's models read typed — one stream's, or all of them a page at a
// time in stream order — on every backend; on PostgreSQL they are jsonb, queryable with SQL.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <whizbang/store/perspective_models.hpp>

#include "fixture.hpp"

namespace persp {
namespace {

using whizbang::ModelPageRequest;
using whizbang::PerspectiveModels;
using whizbang::Uuid;

class QueryingModelsTests : public ::testing::TestWithParam<Backend> {
 protected:
  // `count` orders, each on its own stream; the streams in the order the store lists them.
  std::vector<Uuid> place_orders(PerspectiveFixture& f, int count) {
    std::vector<Uuid> streams;
    for (int i = 0; i < count; ++i) {
      const Uuid stream = whizbang::MessageId::mint().uuid();
      whizbang::Envelope event = f.envelope(OrderCreated{{}, "o-" + std::to_string(i), i}, stream);
      EXPECT_TRUE(f.runner->process(event).ok());
      streams.push_back(stream);
    }
    std::sort(streams.begin(), streams.end());
    return streams;
  }
};

TEST_P(QueryingModelsTests, FindOneStreamsModel_TypedAndNulloptWhenNoEventApplied) {
  PerspectiveFixture f(GetParam());
  const std::vector<Uuid> streams = place_orders(f, 2);
  PerspectiveModels<OrderSummary> summaries(*f.store, std::string(kSummary));

  auto found = summaries.find(streams[0]);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->applied, 1);
  EXPECT_EQ((*found)->order_id.rfind("o-", 0), 0u);

  auto absent = summaries.find(whizbang::MessageId::mint().uuid());
  ASSERT_TRUE(absent.ok()) << absent.status();
  EXPECT_FALSE(absent->has_value());
}

TEST_P(QueryingModelsTests, ListPagesInStreamOrder_EveryModelOnce_LastPageHasNoNext) {
  PerspectiveFixture f(GetParam());
  const std::vector<Uuid> streams = place_orders(f, 25);
  PerspectiveModels<OrderSummary> summaries(*f.store, std::string(kSummary));

  std::vector<Uuid> listed;
  std::set<std::string> orders;
  ModelPageRequest request{.after = std::nullopt, .limit = 10};
  int pages = 0;
  do {
    auto page = summaries.list(request);
    ASSERT_TRUE(page.ok()) << page.status();
    ASSERT_LE(page->models.size(), 10u);
    for (const auto& stored : page->models) {
      listed.push_back(stored.stream_id);
      orders.insert(stored.model.order_id);
      EXPECT_EQ(stored.model.applied, 1);
    }
    request.after = page->next_after;
    ++pages;
  } while (request.after && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(listed, streams);
  EXPECT_EQ(orders.size(), 25u);
}

TEST_P(QueryingModelsTests, ListOnlyThatPerspectivesModels_ExactPageHasNoNext) {
  PerspectiveFixture f(GetParam());
  place_orders(f, 4);
  // CountPerspective applies OrderCreated too: its four models are its own.
  PerspectiveModels<OrderCount> counts(*f.store, std::string(kCount));
  auto page = counts.list({.after = std::nullopt, .limit = 4});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->models.size(), 4u);
  EXPECT_FALSE(page->next_after.has_value());
  for (const auto& stored : page->models) EXPECT_EQ(stored.model.created, 1);

  PerspectiveModels<OrderSummary> nobody(*f.store, "persp::NoSuchPerspective");
  auto empty = nobody.list();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->models.empty());
}

TEST_P(QueryingModelsTests, StoredModelThatNoLongerDecodes_IsDataLossNamingTheStream) {
  PerspectiveFixture f(GetParam());
  const Uuid stream = whizbang::MessageId::mint().uuid();
  ASSERT_TRUE(f.store
                  ->save_perspective_model(kSummary, stream, R"({"items":"three"})",
                                           whizbang::MessageId::mint())
                  .ok());
  PerspectiveModels<OrderSummary> summaries(*f.store, std::string(kSummary));
  auto found = summaries.find(stream);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(found.status().message().find(stream.to_string()), std::string::npos);
  EXPECT_NE(found.status().message().find("$.items"), std::string::npos) << found.status();
  EXPECT_EQ(summaries.list().status().code(), absl::StatusCode::kDataLoss);
}

TEST_P(QueryingModelsTests, PageLimitOutsideOneToMax_IsInvalidArgument) {
  PerspectiveFixture f(GetParam());
  PerspectiveModels<OrderSummary> summaries(*f.store, std::string(kSummary));
  EXPECT_EQ(summaries.list({.after = std::nullopt, .limit = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      summaries.list({.after = std::nullopt, .limit = whizbang::kMaxModelPage + 1}).status().code(),
      absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Stores, QueryingModelsTests, all_backends(), backend_name);

// On PostgreSQL a model is also jsonb (`model`): users query it, and index what they query, with
// plain SQL
// (docs/guide/07-perspectives.md shows how).
TEST(QueryingModelsPostgresTests, ModelsAreJsonb_QueriedAndIndexedWithSql_TextKeptAsWritten) {
  PerspectiveFixture f(Backend::Postgres);
  ASSERT_FALSE(f.postgres_conninfo.empty());
  for (int i = 0; i < 5; ++i) {
    whizbang::Envelope event = f.envelope(OrderCreated{{}, "o-" + std::to_string(i), i},
                                          whizbang::MessageId::mint().uuid());
    ASSERT_TRUE(f.runner->process(event).ok());
  }
  EXPECT_EQ(whizbang_test::postgres_scalar(
                f.postgres_conninfo,
                "SELECT count(*) FROM wh_perspective_models WHERE pg_typeof(model) = "
                "'jsonb'::regtype"),
            10);
  ASSERT_TRUE(whizbang_test::postgres_admin(
      f.postgres_conninfo,
      "CREATE INDEX order_summary_items ON wh_perspective_models (((model->>'items')::int)) "
      "WHERE perspective_name = 'persp::SummaryPerspective'"));
  EXPECT_EQ(whizbang_test::postgres_scalar(
                f.postgres_conninfo,
                "SELECT count(*) FROM wh_perspective_models WHERE perspective_name = "
                "'persp::SummaryPerspective' AND (model->>'items')::int >= 3"),
            2);
  EXPECT_EQ(
      whizbang_test::postgres_scalar(f.postgres_conninfo,
                                     "SELECT count(*) FROM wh_perspective_models WHERE model @> "
                                     "'{\"order_id\": \"o-4\"}'"),
      1);
  // The runtime reads back the text the codec wrote, not jsonb's respaced, reordered form.
  auto rows = f.store->list_perspective_models(kSummary, std::nullopt, 1);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().row.model_json.find(": "), std::string::npos)
      << rows->front().row.model_json;
}

}  // namespace
}  // namespace persp
