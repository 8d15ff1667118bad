// The PostgreSQL store's migrations over a schema an older runtime left, rows included.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "postgres_connection.hpp"
#include "store/postgres/migrations.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace store_test {
namespace {

using whizbang::MessageId;
using whizbang::PostgresWorkStore;
namespace postgres = whizbang::postgres;

// The SQL that leaves a schema as a runtime of schema `version` left it: its migrations, each
// recorded in wh_schema_version.
std::string schema_up_to(int version) {
  std::string sql =
      "CREATE TABLE wh_schema_version (version integer PRIMARY KEY, name text NOT NULL, "
      "applied_at bigint NOT NULL);";
  for (const postgres::Migration& migration : postgres::migrations()) {
    if (migration.version > version) break;
    sql += std::string(migration.sql) + "INSERT INTO wh_schema_version VALUES (" +
           std::to_string(migration.version) + ", 'v', 0);";
  }
  return sql;
}

// Version 1 kept an outbox id's publication time in wh_outbox_ids; version 2 keeps ids by their
// age and while their row waits. A published id and a waiting row's id, both stored long ago,
// come through the upgrade: the purge then drops the published one only.
TEST(PostgresMigrationTests, Version1Store_UpgradesAndKeepsItsOutboxIds) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  auto opened = postgres::Connection::open(conninfo);
  ASSERT_TRUE(opened.ok()) << opened.status();
  postgres::Connection& connection = **opened;
  const postgres::Migration& first = postgres::migrations().front();
  ASSERT_EQ(first.version, 1);
  ASSERT_TRUE(connection.exec(std::string(first.sql)).ok());
  const std::string published = MessageId::mint().uuid().to_string();
  const std::string waiting = MessageId::mint().uuid().to_string();
  ASSERT_TRUE(connection
                  .exec("CREATE TABLE wh_schema_version (version integer PRIMARY KEY, name text "
                        "NOT NULL, applied_at bigint NOT NULL); "
                        "INSERT INTO wh_schema_version VALUES (1, 'v1', 0); "
                        "INSERT INTO wh_outbox_ids VALUES ('" +
                        published + "', 1, 2), ('" + waiting +
                        "', 1, NULL); "
                        "INSERT INTO wh_outbox (message_id, message_type, event_data, created_at) "
                        "VALUES ('" +
                        waiting + "', 'shop::OrderCreated', '{}', 1)")
                  .ok());

  auto store = PostgresWorkStore::open(conninfo);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->schema_version(), PostgresWorkStore::latest_schema_version());
  auto purged = (*store)->purge(whizbang::RetentionOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->outbox_tombstones, 1);

  postgres::Query left(connection, "SELECT message_id FROM wh_outbox_ids");
  ASSERT_TRUE(*left.step());
  EXPECT_EQ(left.uuid(0).to_string(), waiting);
  EXPECT_FALSE(*left.step());
}

// Perspective events a version 2 runtime left pending come through migration 3 with their
// event's version: claimed in the order their events were appended, not of their ids.
TEST(PostgresMigrationTests, Version2Store_PendingPerspectiveEventsKeepTheirStreamsOrder) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  auto opened = postgres::Connection::open(conninfo);
  ASSERT_TRUE(opened.ok()) << opened.status();
  postgres::Connection& connection = **opened;
  std::string v2 = schema_up_to(2);
  const std::string stream = "0190f3c4-aaaa-7bbb-8ccc-0000000000ff";
  // Version 1 of the stream has the larger id.
  const std::string first = "0190f3c4-aaaa-7bbb-8ccc-000000000002";
  const std::string second = "0190f3c4-aaaa-7bbb-8ccc-000000000001";
  for (const auto& [event, version] : {std::pair{first, 1}, std::pair{second, 2}}) {
    v2 +=
        "INSERT INTO wh_event_store (event_id, stream_id, aggregate_id, aggregate_type, "
        "event_type, event_data, metadata, version, created_at) VALUES ('" +
        event + "', '" + stream + "', '" + stream + "', 't', 't', '{}', '{}', " +
        std::to_string(version) +
        ", 1); INSERT INTO wh_perspective_events (event_work_id, stream_id, perspective_name, "
        "event_id, created_at) VALUES (gen_random_uuid(), '" +
        stream + "', 'P', '" + event + "', 1);";
  }
  ASSERT_TRUE(connection.exec(v2).ok());

  auto store = PostgresWorkStore::open(conninfo);
  ASSERT_TRUE(store.ok()) << store.status();
  auto work = (*store)->claim_perspective_work(10);
  ASSERT_TRUE(work.ok()) << work.status();
  ASSERT_EQ(work->size(), 2u);
  EXPECT_EQ((*work)[0].event_id.to_string(), first);
  EXPECT_EQ((*work)[0].version, 1);
  EXPECT_EQ((*work)[1].event_id.to_string(), second);
}

// Models a version 4 runtime stored come through migration 7 with a jsonb twin: loaded as they
// were written, and queryable with SQL.
TEST(PostgresMigrationTests, Version4Store_ModelsGainTheirJsonbAndStillLoadAsWritten) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  auto opened = postgres::Connection::open(conninfo);
  ASSERT_TRUE(opened.ok()) << opened.status();
  std::string v4 = schema_up_to(4);
  const std::string stream = "0190f3c4-aaaa-7bbb-8ccc-0000000000aa";
  const std::string event = "0190f3c4-aaaa-7bbb-8ccc-0000000000bb";
  v4 +=
      "INSERT INTO wh_perspective_models (perspective_name, stream_id, model_data, "
      "last_event_id, updated_at) VALUES ('P', '" +
      stream + "', '{\"order_id\":\"o-1\",\"items\":3}', '" + event + "', 1);";
  ASSERT_TRUE((*opened)->exec(v4).ok());

  auto store = PostgresWorkStore::open(conninfo);
  ASSERT_TRUE(store.ok()) << store.status();
  auto model = (*store)->load_perspective_model("P", *whizbang::Uuid::parse(stream));
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->has_value());
  EXPECT_EQ((*model)->last_event_id.to_string(), event);
  EXPECT_EQ((*model)->model_json, R"({"order_id":"o-1","items":3})");
  EXPECT_EQ(whizbang_test::postgres_scalar(
                conninfo, "SELECT (model->>'items')::int FROM wh_perspective_models"),
            3);
}

// A work table's storage parameters: room on its pages for lease updates, vacuumed after 10,000
// dead rows, unthrottled (migrations 1, 10 and 11).
constexpr const char* kWorkTableOptions =
    "fillfactor=70,autovacuum_vacuum_scale_factor=0,autovacuum_vacuum_threshold=10000,"
    "autovacuum_vacuum_cost_delay=0";
std::string work_table_options(postgres::Connection& connection, const std::string& table) {
  postgres::Query options(
      connection, "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = '" + table +
                      "'::regclass");
  const absl::StatusOr<bool> row = options.step();
  return row.ok() && *row ? options.text(0) : "(no such table)";
}

// A version 9 store's waiting rows come through migration 10 (the stream indexes rebuilt for
// rows of a stream only; the work tables vacuumed early): still claimed, in stream order.
TEST(PostgresMigrationTests, Version9Store_StreamIndexesPartial_WorkTablesVacuumedEarly) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  auto opened = postgres::Connection::open(conninfo);
  ASSERT_TRUE(opened.ok()) << opened.status();
  postgres::Connection& connection = **opened;
  std::string v9 = schema_up_to(9);
  // Two rows of one stream and one of none.
  const std::string stream = "0190f3c4-aaaa-7bbb-8ccc-0000000000ff";
  for (const auto& [id, of_stream] : {std::pair{"0190f3c4-aaaa-7bbb-8ccc-000000000001", true},
                                      std::pair{"0190f3c4-aaaa-7bbb-8ccc-000000000002", true},
                                      std::pair{"0190f3c4-aaaa-7bbb-8ccc-000000000003", false}}) {
    v9 += std::string(
              "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, "
              "stream_id, created_at) VALUES ('") +
          id + "', 'orders', 't', '{}', " + (of_stream ? "'" + stream + "'" : "NULL") + ", 1);";
  }
  ASSERT_TRUE(connection.exec(v9).ok());

  auto store = PostgresWorkStore::open(conninfo);
  ASSERT_TRUE(store.ok()) << store.status();
  whizbang::WorkBatchRequest request;
  request.claim_inbox = false;
  auto claimed = (*store)->process_work_batch(request);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 3u);
  EXPECT_EQ((*claimed)[0].message_id.to_string(), "0190f3c4-aaaa-7bbb-8ccc-000000000001");

  for (const std::string table : {"wh_outbox", "wh_inbox"}) {
    postgres::Query index(connection,
                          "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                          "AND indexname = '" +
                              table + "_stream'");
    ASSERT_TRUE(*index.step()) << table;
    EXPECT_NE(index.text(0).find("WHERE (stream_id IS NOT NULL)"), std::string::npos)
        << index.text(0);
  }
  for (const char* table : {"wh_outbox", "wh_inbox", "wh_perspective_events"}) {
    EXPECT_EQ(work_table_options(connection, table), kWorkTableOptions) << table;
  }
}

// A version 10 store's stage work comes through migration 11 (its tables vacuumed as early as
// the other work tables): still claimed.
TEST(PostgresMigrationTests, Version10Store_StageWorkTablesVacuumedEarly) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  auto opened = postgres::Connection::open(conninfo);
  ASSERT_TRUE(opened.ok()) << opened.status();
  postgres::Connection& connection = **opened;
  ASSERT_TRUE(connection
                  .exec(schema_up_to(10) +
                        "INSERT INTO wh_detached_work (work_id, message_id, message_type, "
                        "receptor_id, stage, perspective, envelope, created_at) VALUES "
                        "('0190f3c4-aaaa-7bbb-8ccc-000000000001', "
                        "'0190f3c4-aaaa-7bbb-8ccc-000000000002', 't', 'shop::Mailer', 0, '', "
                        "'{}', 1);")
                  .ok());

  auto store = PostgresWorkStore::open(conninfo);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->schema_version(), PostgresWorkStore::latest_schema_version());
  auto claimed = (*store)->claim_detached_work(10);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].work_id.to_string(), "0190f3c4-aaaa-7bbb-8ccc-000000000001");

  for (const char* table : {"wh_lifecycle_completions", "wh_detached_work"}) {
    EXPECT_EQ(work_table_options(connection, table), kWorkTableOptions) << table;
  }
}

}  // namespace
}  // namespace store_test
