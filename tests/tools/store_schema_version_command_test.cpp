// A SQLite store migrated by a newer runtime (a schema version this tool does not know): the
// read-only commands read what they know and warn on one line of stderr; `store requeue`, which
// would write through a work store, refuses. (The PostgreSQL side: postgres_store_command_test.)
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <string>

#include "cli_test_run.hpp"
#include "fmt/format.h"
#include "store_test_support.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang::cli {
namespace {

using store_test::outbox_message;
using store_test::ShipOrderCommand;
using test::CliRun;
using test::identity;
using test::run_binary;

TEST(StoreSchemaVersionCommandTests, NewerSqliteStore_ReadCommandsWarnOnceAndRequeueRefuses) {
  store_test::TempDir dir;
  const std::string path = dir.file("orders.db");
  MessageId dead;
  {
    auto store = SqliteWorkStore::open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    const OutboxMessage row = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
    dead = row.message_id;
    ASSERT_TRUE((*store)->store_outbox_messages({&row, 1}).ok());
    WorkBatchRequest request;
    request.failures.push_back({WorkSource::Outbox, dead, MessageStatus::None, "no route",
                                FailureReason::Unknown, /*dead_letter=*/true});
    ASSERT_TRUE((*store)->process_work_batch(request).ok());
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db,
                           "INSERT INTO wh_schema_version (version, name, applied_at) VALUES (99, "
                           "'future', 0)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  const std::string warning = fmt::format(
      "whizbang: warning: store schema version 99 is newer than this tool knows ({}); output may "
      "be incomplete\n",
      SqliteWorkStore::latest_schema_version());
  const std::vector<std::vector<std::string>> reads = {
      {"store", "inspect", path},
      {"store", "inspect", path, "--json"},
      {"store", "dead-letters", path, "--json"},
      {"store", "stream", path, "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356"},
  };
  for (const std::vector<std::string>& args : reads) {
    const CliRun r = run_binary(args);
    SCOPED_TRACE(args[1]);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, warning);
  }

  const auto before = identity(path);
  const CliRun requeue = run_binary({"store", "requeue", path, "--all"});
  EXPECT_NE(requeue.code, 0);
  EXPECT_EQ(std::count(requeue.err.begin(), requeue.err.end(), '\n'), 1) << requeue.err;
  EXPECT_NE(requeue.err.find("has schema version 99, newer than this runtime's"), std::string::npos)
      << requeue.err;
  EXPECT_TRUE(identity(path) == before) << "requeue wrote to a newer store";
}

}  // namespace
}  // namespace whizbang::cli
