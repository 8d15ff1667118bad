// whizbang store dead-letters, and the dead-letter counts of `store inspect`, through the real
// binary: over the runtime-made dead letters of dead_letter_fixture.hpp, a store without any, and
// a store of a schema older than dead letters.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>

#include "dead_letter_fixture.hpp"
#include "fmt/format.h"
#include "store/sqlite/migrations.hpp"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"

namespace whizbang::cli {
namespace {

using namespace std::chrono_literals;
using store_test::outbox_message;
using store_test::ShipOrderCommand;
using test::CliRun;
using test::DeadLetterStoreTest;
using test::Expected;
using test::identity;
using test::kOutboxError;
using test::listing;
using test::parse_json;
using test::run_binary;
using test::text;

using StoreDeadLettersCommandTests = DeadLetterStoreTest;
using StoreInspectCommandDeadLetterTests = DeadLetterStoreTest;

TEST_F(StoreDeadLettersCommandTests, ListsEveryDeadLetterWithItsReasonAndLastError) {
  const CliRun r = run_binary({"store", "dead-letters", path_, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const rapidjson::Document json = parse_json(r.out);
  ASSERT_TRUE(json.IsArray()) << r.out;
  ASSERT_EQ(json.Size(), expected_.size()) << r.out;
  for (rapidjson::SizeType i = 0; i < json.Size(); ++i) {
    const rapidjson::Value& letter = json[i];
    const Expected& want = expected_[i];
    SCOPED_TRACE(want.source);
    EXPECT_EQ(letter.MemberCount(), 10u) << "stable keys";
    EXPECT_EQ(text(letter, "source"), want.source);
    EXPECT_EQ(text(letter, "id"), want.id.to_string());
    EXPECT_EQ(text(letter, "message_type"), want.message_type);
    EXPECT_EQ(text(letter, "target"), want.target);
    if (want.stream_id) {
      EXPECT_EQ(text(letter, "stream_id"), *want.stream_id);
    } else {
      EXPECT_TRUE(letter["stream_id"].IsNull());
    }
    EXPECT_EQ(letter["attempts"].GetInt(), want.attempts);
    EXPECT_EQ(text(letter, "reason"), want.reason);
    EXPECT_TRUE(letter["reason_code"].IsInt());
    EXPECT_EQ(text(letter, "dead_lettered_at"), format_time(want.dead_lettered_at));
    EXPECT_EQ(text(letter, "error"), want.error);
  }
  EXPECT_EQ(json[0]["reason_code"].GetInt(), static_cast<int>(FailureReason::TransportException));
  EXPECT_EQ(json[1]["reason_code"].GetInt(), static_cast<int>(FailureReason::MaxAttemptsExceeded));
}

TEST_F(StoreDeadLettersCommandTests, TextTableShowsEachDeadLetterOnOneLineOldestFirst) {
  const CliRun r = run_binary({"store", "dead-letters", path_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("dead letters: 5\n", 0), 0u) << r.out;
  for (const char* column : {"SOURCE", "ID", "TYPE", "TARGET", "STREAM", "ATTEMPTS", "REASON",
                             "DEAD-LETTERED AT", "ERROR"}) {
    EXPECT_NE(r.out.find(column), std::string::npos) << column;
  }
  // A header line, a column line and one line per dead letter: the two-line error is escaped.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 7) << r.out;
  EXPECT_NE(r.out.find("broker refused \"shipping\"\\nqueue not found"), std::string::npos)
      << r.out;
  std::size_t previous = 0;
  for (const Expected& want : expected_) {
    const std::size_t line = r.out.find(want.id.to_string());
    ASSERT_NE(line, std::string::npos) << want.source << "\n" << r.out;
    EXPECT_GT(line, previous) << "oldest first: " << want.source;
    previous = line;
    const std::size_t start = r.out.rfind('\n', line) + 1;
    const std::string row = r.out.substr(start, r.out.find('\n', line) - start);
    EXPECT_EQ(row.rfind("  " + want.source + "  ", 0), 0u) << row;
    for (const std::string& cell :
         {want.message_type, want.target, want.reason, format_time(want.dead_lettered_at)}) {
      EXPECT_NE(row.find("  " + cell + "  "), std::string::npos) << cell << " in: " << row;
    }
  }
}

TEST_F(StoreDeadLettersCommandTests, LimitShowsTheOldestAndSaysHowManyThereAre) {
  const CliRun json = run_binary({"store", "dead-letters", path_, "--json", "--limit", "2"});
  ASSERT_EQ(json.code, 0) << json.err;
  const rapidjson::Document letters = parse_json(json.out);
  ASSERT_EQ(letters.Size(), 2u);
  EXPECT_EQ(text(letters[0], "id"), expected_[0].id.to_string());
  EXPECT_EQ(text(letters[1], "id"), expected_[1].id.to_string());
  const CliRun table = run_binary({"store", "dead-letters", path_, "--limit=3"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("dead letters: 5 (oldest 3 shown)\n", 0), 0u) << table.out;
  EXPECT_EQ(table.out.find(expected_[3].id.to_string()), std::string::npos);
}

TEST_F(StoreDeadLettersCommandTests, NeitherWritesNorCreatesAnyFile) {
  const auto before = identity(path_);
  const auto files_before = listing(std::filesystem::path(path_).parent_path());
  EXPECT_EQ(run_binary({"store", "dead-letters", path_}).code, 0);
  EXPECT_EQ(run_binary({"store", "dead-letters", path_, "--json", "--limit", "1"}).code, 0);
  EXPECT_TRUE(identity(path_) == before) << "dead-letters modified the store file";
  EXPECT_EQ(listing(std::filesystem::path(path_).parent_path()), files_before)
      << "dead-letters left files (-wal, -shm) next to the store";
}

TEST(StoreDeadLettersCommandEmptyStoreTests, StoreWithoutDeadLettersPrintsNoDeadLetters) {
  store_test::TempDir dir;
  const std::string path = dir.file("clean.db");
  {
    auto store = SqliteWorkStore::open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    const OutboxMessage live = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
    ASSERT_TRUE((*store)->store_outbox_messages({&live, 1}).ok());
  }
  const CliRun r = run_binary({"store", "dead-letters", path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "no dead letters in " + path + "\n");
  EXPECT_EQ(r.err, "");
  const CliRun json = run_binary({"store", "dead-letters", path, "--json"});
  EXPECT_EQ(json.code, 0) << json.err;
  const rapidjson::Document letters = parse_json(json.out);
  ASSERT_TRUE(letters.IsArray()) << json.out;
  EXPECT_EQ(letters.Size(), 0u);
  const CliRun inspect = run_binary({"store", "inspect", path});
  EXPECT_EQ(inspect.out.find("dead letters"), std::string::npos) << inspect.out;
  EXPECT_EQ(inspect.out.find("dead-lettered"), std::string::npos) << inspect.out;
}

// A store written by a runtime that knew migrations 1 to 4: no dead_lettered_at column anywhere.
TEST(StoreDeadLettersCommandOlderSchemaTests,
     StoreBeforeMigration5HasNoDeadLettersAndIsNotMigrated) {
  store_test::TempDir dir;
  const std::string path = dir.file("v4.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string sql =
        "CREATE TABLE wh_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at INTEGER NOT NULL);";
    for (const sqlite::Migration& migration : sqlite::migrations()) {
      if (migration.version >= SqliteStoreInspector::kDeadLettersSchemaVersion) break;
      sql += std::string(migration.sql) +
             fmt::format("INSERT INTO wh_schema_version VALUES ({}, '{}', 0);", migration.version,
                         migration.name);
    }
    sql +=
        "INSERT INTO wh_outbox (message_id, message_type, event_data, status, failure_reason, "
        "created_at) VALUES (x'0190f3c4aaaa7bbb8ccc000000000001', 'store_test::ShipOrderCommand', "
        "'{}', 32769, 3, 1);";
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_close(db);
  }
  const auto before = identity(path);

  const CliRun r = run_binary({"store", "dead-letters", path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("no dead letters in " + path, 0), 0u) << r.out;
  EXPECT_NE(r.out.find("schema version 4"), std::string::npos) << r.out;
  const CliRun json = run_binary({"store", "dead-letters", path, "--json"});
  EXPECT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(parse_json(json.out).Size(), 0u);
  const CliRun inspect = run_binary({"store", "inspect", path, "--json"});
  ASSERT_EQ(inspect.code, 0) << inspect.err;
  const rapidjson::Document document = parse_json(inspect.out);
  EXPECT_EQ(document["schema_version"].GetInt(), 4);
  EXPECT_EQ(document["counts"]["outbox"].GetInt64(), 1);
  EXPECT_EQ(document["dead_letters"]["total"].GetInt64(), 0);

  const CliRun requeue = run_binary({"store", "requeue", path, "--all"});
  EXPECT_EQ(requeue.code, 0) << requeue.err;
  EXPECT_EQ(requeue.out, "requeued 0 dead letters (schema version 4 predates dead letters)\n");
  EXPECT_TRUE(identity(path) == before) << "the old store was migrated or written";
}

TEST_F(StoreInspectCommandDeadLetterTests, InspectCountsDeadLettersPerTable) {
  const auto before = identity(path_);
  const CliRun r = run_binary({"store", "inspect", path_, "--recent", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string& expected :
       {std::string("dead letters: 5 (outbox 1, inbox 1, perspective events 1, lifecycle "
                    "completions 1, detached work 1); list them with: whizbang store "
                    "dead-letters ") +
            path_ + "\n",
        std::string("outbox: 3 rows (1 dead-lettered, 2 most recent)\n"),
        std::string("inbox: 1 row (1 dead-lettered)\n"),
        std::string("perspective events: 1 row (1 dead-lettered)\n"),
        std::string("event store: 2 rows\n")}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  }

  const CliRun json = run_binary({"store", "inspect", path_, "--json", "--recent", "0"});
  ASSERT_EQ(json.code, 0) << json.err;
  const rapidjson::Document document = parse_json(json.out);
  const rapidjson::Value& dead = document["dead_letters"];
  EXPECT_EQ(dead["total"].GetInt64(), 5);
  EXPECT_EQ(dead["outbox"].GetInt64(), 1);
  EXPECT_EQ(dead["inbox"].GetInt64(), 1);
  EXPECT_EQ(dead["perspective_events"].GetInt64(), 1);
  EXPECT_EQ(dead["lifecycle_completions"].GetInt64(), 1);
  EXPECT_EQ(dead["detached_work"].GetInt64(), 1);
  EXPECT_EQ(document["counts"]["outbox"].GetInt64(), 3);
  EXPECT_TRUE(identity(path_) == before);

  ASSERT_EQ(run_binary({"store", "requeue", path_, expected_[0].id.to_string()}).code, 0);
  const CliRun after = run_binary({"store", "inspect", path_, "--recent", "0"});
  EXPECT_NE(after.out.find("dead letters: 4 (inbox 1, perspective events 1, lifecycle "
                           "completions 1, detached work 1)"),
            std::string::npos)
      << after.out;
  EXPECT_NE(after.out.find("outbox: 3 rows\n"), std::string::npos) << after.out;
}

TEST_F(StoreInspectCommandDeadLetterTests, InspectShowsALastErrorOnOneLineAndRawInJson) {
  const CliRun r = run_binary({"store", "inspect", path_, "--recent", "10"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("broker refused \"shipping\"\\nqueue not found\n"), std::string::npos)
      << r.out;
  const CliRun json = run_binary({"store", "inspect", path_, "--json", "--recent", "10"});
  ASSERT_EQ(json.code, 0) << json.err;
  const rapidjson::Document document = parse_json(json.out);
  int found = 0;
  for (const rapidjson::Value& row : document["outbox"].GetArray()) {
    if (text(row, "message_id") != expected_[0].id.to_string()) continue;
    ++found;
    EXPECT_EQ(text(row, "error"), kOutboxError);
  }
  EXPECT_EQ(found, 1) << json.out;
}

TEST(StoreDeadLettersCommandHelpTests, HelpDescribesDeadLettersAndRequeue) {
  const CliRun store = run_binary({"store", "--help"});
  EXPECT_EQ(store.code, 0);
  for (const char* line :
       {"  dead-letters                every dead letter, oldest first, with its reason and last "
        "error\n",
        "  requeue                     give dead letters a fresh set of attempts, due now\n",
        "requeue writes, next to running services"}) {
    EXPECT_NE(store.out.find(line), std::string::npos) << line << "\n" << store.out;
  }
  const CliRun list = run_binary({"store", "dead-letters", "--help"});
  EXPECT_EQ(list.code, 0);
  for (const char* line :
       {"Usage: whizbang store dead-letters [OPTIONS] FILE\n",
        "  --limit N                   show the N oldest\n", "  --json ", "Opens FILE read-only"}) {
    EXPECT_NE(list.out.find(line), std::string::npos) << line << "\n" << list.out;
  }
  const CliRun requeue = run_binary({"store", "requeue", "--help"});
  EXPECT_EQ(requeue.code, 0);
  for (const char* line :
       {"Usage: whizbang store requeue [OPTIONS] FILE [ID...]\n",
        "  --all                       requeue every dead letter\n", "migrates an older schema"}) {
    EXPECT_NE(requeue.out.find(line), std::string::npos) << line << "\n" << requeue.out;
  }
  const CliRun top = run_binary({"--help"});
  EXPECT_NE(top.out.find("dead letters"), std::string::npos) << top.out;
}

}  // namespace
}  // namespace whizbang::cli
