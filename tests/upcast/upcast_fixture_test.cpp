// UpcastFixtureTests: a store and envelopes written by VERSION 1 code
// (tests/data/upcast/, written by upcast_v1_fixture_writer from v1/orders_v1.hpp) read by VERSION 3
// code (v3/orders_v3.hpp, upcasters v1 -> v2 -> v3) on every read path: envelope_from_stored_event,
// the perspective worker, a rebuild, the inbox and `whizbang store stream --upcast`. Derived ids
// stay v1's.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <whizbang/message/envelope_json.hpp>
#include <whizbang/workers/perspective_worker.hpp>

#include "cli/commands.hpp"
#include "support/temp_dir.hpp"
#include "v3_service.hpp"

namespace fixture {
namespace {

class UpcastFixtureTests : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(data_dir() / "orders_v1.db"));
    std::filesystem::copy_file(data_dir() / "orders_v1.db", db_);
    ASSERT_EQ(v1_envelopes().size(), 2u);
  }

  whizbang_test::TempDir dir_;
  std::string db_ = dir_.file("orders_v1.db");
};

void expect_upcast(const OrderPlaced& placed) {
  if (placed.order_id == "o-1") {
    EXPECT_EQ(placed.total.cents, 1250);
  } else {
    EXPECT_EQ(placed.order_id, "o-2");
    EXPECT_EQ(placed.total.cents, 399);
  }
  EXPECT_EQ(placed.total.currency, "EUR");  // v1 -> v2
  EXPECT_EQ(placed.channel, "legacy");      // v2 -> v3
}

TEST_F(UpcastFixtureTests, StoredV1Events_EnvelopeFromStoredEvent_GivesV3WithTheStoredIds) {
  const std::vector<whizbang::StoredEvent> events = stream_events(db_, v1_stream());
  int placed = 0;
  for (const whizbang::StoredEvent& event : events) {
    if (event.event_type != "fixture.OrderPlaced") continue;
    EXPECT_EQ(event.event_data.find("\"total\""), std::string::npos) << "stored as v1";
    auto envelope = whizbang::envelope_from_stored_event(
        event.event_id, event.event_type, event.event_data, event.metadata, v3_registry());
    ASSERT_TRUE(envelope.ok()) << envelope.status();
    EXPECT_EQ(envelope->message_id, event.event_id);
    const OrderPlaced* v3 = envelope->payload.get_if<OrderPlaced>();
    ASSERT_NE(v3, nullptr);
    expect_upcast(*v3);
    ++placed;
  }
  EXPECT_EQ(placed, 2);
}

TEST_F(UpcastFixtureTests, StoredV1Events_PerspectiveWorkerAppliesThemAsV3) {
  V3Service service(db_);
  service.run(3);
  auto row = service.store->load_perspective_model("fixture::OrderTotalsPerspective", v1_stream());
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(row->has_value()) << "the v1 events' perspective work was not applied";
  OrderTotals totals;
  ASSERT_TRUE(v3_registry()
                  .find_perspective("fixture::OrderTotalsPerspective")
                  ->model_from_json((*row)->model_json, &totals)
                  .ok());
  EXPECT_EQ(totals.orders, 2);
  EXPECT_EQ(totals.cents, 1250 + 399);
  EXPECT_EQ(totals.currency, "EUR");
  EXPECT_EQ(totals.channels, (std::vector<std::string>{"legacy", "legacy"}));
  auto dead = service.store->dead_letters(10);
  ASSERT_TRUE(dead.ok());
  EXPECT_TRUE(dead->empty());
}

TEST_F(UpcastFixtureTests, StoredV1Events_RebuildReplaysThemAsV3) {
  V3Service service(db_);
  whizbang::RebuildOptions in_place;
  in_place.mode = whizbang::RebuildMode::InPlace;
  auto rebuilt = service.host->rebuilder()->rebuild("fixture::OrderTotalsPerspective", in_place);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(rebuilt->events_applied, 2);
  auto row = service.store->load_perspective_model("fixture::OrderTotalsPerspective", v1_stream());
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(row->has_value());
  OrderTotals totals;
  ASSERT_TRUE(v3_registry()
                  .find_perspective("fixture::OrderTotalsPerspective")
                  ->model_from_json((*row)->model_json, &totals)
                  .ok());
  EXPECT_EQ(totals.orders, 2);
  EXPECT_EQ(totals.cents, 1250 + 399);
  EXPECT_EQ(totals.currency, "EUR");
  EXPECT_EQ(totals.channels, (std::vector<std::string>{"legacy", "legacy"}));
}

TEST_F(UpcastFixtureTests, V1EnvelopesFromAnOlderService_InboxDecodesV3_DerivedIdsEqualV1s) {
  const std::string db = dir_.file("orders_v3.db");
  {
    V3Service service(db);
    for (const std::string& json : v1_envelopes()) {
      auto id = whizbang::peek_envelope_type(json);  // a v1 envelope names its type
      ASSERT_TRUE(id.ok());
      rapidjson::Document document;
      document.Parse(json.c_str());
      auto message_id = whizbang::Uuid::parse(document["id"].GetString());
      ASSERT_TRUE(message_id.ok());
      service.deliver(json, whizbang::MessageId::from_trusted(*message_id));
    }
    service.run(4);
    const std::vector<OrderPlaced> seen = service.seen.placed();
    ASSERT_EQ(seen.size(), 2u);
    for (const OrderPlaced& placed : seen) expect_upcast(placed);
  }
  // NoteOrder's OrderNoted ids derive from the OrderPlaced ids: v3 derives v1's.
  const std::vector<std::string> v1_noted =
      ids_of_type(stream_events(db_, v1_stream()), "fixture.OrderNoted");
  const std::vector<std::string> v3_noted =
      ids_of_type(stream_events(db, v1_stream()), "fixture.OrderNoted");
  ASSERT_EQ(v1_noted.size(), 2u);
  EXPECT_EQ(v3_noted, v1_noted);
  // The OrderPlaced this service stored (as received, or re-serialized at v3) reads as v3.
  for (const whizbang::StoredEvent& event : stream_events(db, v1_stream())) {
    if (event.event_type != "fixture.OrderPlaced") continue;
    auto envelope = whizbang::envelope_from_stored_event(
        event.event_id, event.event_type, event.event_data, event.metadata, v3_registry());
    ASSERT_TRUE(envelope.ok()) << envelope.status();
    ASSERT_NE(envelope->payload.get_if<OrderPlaced>(), nullptr);
    expect_upcast(*envelope->payload.get_if<OrderPlaced>());
  }
}

TEST_F(UpcastFixtureTests, StoreStreamWithTheRegistry_PrintsTheV3Payload) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = whizbang::cli::run_cli(
      {"store", "stream", db_, v1_stream().to_string(), "--json", "--upcast"}, {out, err},
      v3_registry());
  ASSERT_EQ(code, 0) << err.str();
  rapidjson::Document json;
  json.Parse(out.str().c_str());
  ASSERT_TRUE(json.IsObject()) << out.str();
  int placed = 0;
  for (const auto& event : json["events"].GetArray()) {
    if (std::string_view(event["event_type"].GetString()) != "fixture.OrderPlaced") continue;
    ++placed;
    EXPECT_EQ(event["payload_version"].GetInt(), 1) << out.str();
    ASSERT_TRUE(event["payload"].IsObject()) << out.str();
    EXPECT_TRUE(event["payload"].HasMember("total")) << out.str();
    EXPECT_STREQ(event["payload"]["channel"].GetString(), "legacy");
    EXPECT_STREQ(event["payload"]["total"]["currency"].GetString(), "EUR");
  }
  EXPECT_EQ(placed, 2);

  // The generic tool (no registry) prints the payload as stored, and its version.
  std::ostringstream raw;
  ASSERT_EQ(whizbang::cli::run_cli({"store", "stream", db_, v1_stream().to_string(), "--json"},
                                   {raw, err}),
            0)
      << err.str();
  rapidjson::Document stored;
  stored.Parse(raw.str().c_str());
  ASSERT_TRUE(stored.IsObject()) << raw.str();
  int raw_placed = 0;
  for (const auto& event : stored["events"].GetArray()) {
    if (std::string_view(event["event_type"].GetString()) != "fixture.OrderPlaced") continue;
    ++raw_placed;
    EXPECT_EQ(event["payload_version"].GetInt(), 1) << raw.str();
    EXPECT_TRUE(event["payload"].HasMember("price")) << raw.str();
    EXPECT_FALSE(event["payload"].HasMember("channel")) << raw.str();
  }
  EXPECT_EQ(raw_placed, 2);
  std::ostringstream refused;
  EXPECT_EQ(whizbang::cli::run_cli({"store", "stream", db_, v1_stream().to_string(), "--upcast"},
                                   {refused, err}),
            2);
  EXPECT_NE(err.str().find("--upcast"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace fixture
