// A store migrated by a newer runtime (a wh_schema_version row above what this runtime knows):
// opening it as a work store fails with a clear error and writes nothing, on both backends; the
// read-only inspector opens it and says it is newer (the CLI's warning).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/open_work_store.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/store/store_inspector.hpp"

namespace store_test {
namespace {

constexpr const char* kFutureVersion =
    "INSERT INTO wh_schema_version (version, name, applied_at) VALUES (99, 'future', 0)";

void expect_refused(const absl::StatusOr<std::unique_ptr<whizbang::WorkStore>>& store, int known) {
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(store.status())) << store.status();
  EXPECT_NE(std::string(store.status().message())
                .find("has schema version 99, newer than this runtime's " + std::to_string(known)),
            std::string::npos)
      << store.status();
}

void expect_inspected_as_newer(const std::string& location, int known) {
  auto inspector = whizbang::open_store_inspector(location);
  ASSERT_TRUE(inspector.ok()) << inspector.status();
  EXPECT_EQ((*inspector)->schema_version(), 99);
  EXPECT_EQ((*inspector)->known_schema_version(), known);
  EXPECT_TRUE((*inspector)->schema_is_newer());
  auto counts = (*inspector)->counts();
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->outbox, 1);
}

TEST(NewerSchemaTests, SqliteStore_WorkStoreRefusesItAndTheInspectorSaysItIsNewer) {
  TempDir dir;
  const std::string path = dir.file("orders.db");
  {
    auto store = whizbang::SqliteWorkStore::open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    const whizbang::OutboxMessage row = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
    ASSERT_TRUE((*store)->store_outbox_messages({&row, 1}).ok());
    auto inspector = whizbang::open_store_inspector(path);
    ASSERT_TRUE(inspector.ok()) << inspector.status();
    EXPECT_FALSE((*inspector)->schema_is_newer());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, kFutureVersion, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  const int known = whizbang::SqliteWorkStore::latest_schema_version();
  expect_refused(whizbang::open_work_store(path), known);
  expect_inspected_as_newer(path, known);
}

TEST(NewerSchemaTests, PostgresStore_WorkStoreRefusesItAndTheInspectorSaysItIsNewer) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  {
    auto store = whizbang::PostgresWorkStore::open(conninfo);
    ASSERT_TRUE(store.ok()) << store.status();
    const whizbang::OutboxMessage row = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
    ASSERT_TRUE((*store)->store_outbox_messages({&row, 1}).ok());
  }
  ASSERT_TRUE(whizbang_test::postgres_admin(conninfo, kFutureVersion));

  const int known = whizbang::PostgresWorkStore::latest_schema_version();
  expect_refused(whizbang::open_work_store(conninfo), known);
  expect_inspected_as_newer(conninfo, known);
}

}  // namespace
}  // namespace store_test
