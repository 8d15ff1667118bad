// whizbang store requeue through the real binary, over the runtime-made dead letters of
// dead_letter_fixture.hpp: by id, several ids, --all, ids that match nothing, and every bad input
// of both dead-letter commands (exit 2, one line, nothing created or modified).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "dead_letter_fixture.hpp"

namespace whizbang::cli {
namespace {

using namespace std::chrono_literals;
using test::BadInput;
using test::CliRun;
using test::DeadLetterStoreTest;
using test::Expected;
using test::identity;
using test::kOutboxError;
using test::listing;
using test::parse_json;
using test::run_binary;
using test::text;

using StoreRequeueCommandTests = DeadLetterStoreTest;
using StoreDeadLetterCommandsTests = DeadLetterStoreTest;

TEST_F(StoreRequeueCommandTests, RequeueByIdRequeuesExactlyThatDeadLetter) {
  const std::string outbox_id = expected_[0].id.to_string();
  const CliRun r = run_binary({"store", "requeue", path_, outbox_id});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "requeued 1 dead letter\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(listed_ids(), expected_ids({1, 2, 3, 4}));

  auto store = open_store();
  ASSERT_NE(store, nullptr);
  auto row = store->find_outbox_row(expected_[0].id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_FALSE((*row)->state.dead_lettered_at.has_value());
  EXPECT_EQ((*row)->state.attempts, 0);
  EXPECT_EQ((*row)->state.error, kOutboxError) << "the last error stays for the record";
  EXPECT_EQ(count_id(claim(*store), expected_[0].id), 1) << "the requeued row is offered again";
  auto inbox = store->find_inbox_row(expected_[1].id);
  ASSERT_TRUE(inbox.ok() && inbox->has_value());
  EXPECT_TRUE((*inbox)->state.dead_lettered_at.has_value()) << "the others stay dead letters";
}

TEST_F(StoreRequeueCommandTests, RequeueByIdTakesSeveralIdsOfAnyKind) {
  const CliRun r = run_binary({"store", "requeue", path_, expected_[2].id.to_string(),
                               expected_[1].id.to_string(), expected_[2].id.to_string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "requeued 2 dead letters\n");
  EXPECT_EQ(listed_ids(), expected_ids({0, 3, 4}));
  auto store = open_store();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(count_id(claim(*store), expected_[1].id), 1) << "the inbox row is offered again";
  auto work = store->claim_perspective_work(10);
  ASSERT_TRUE(work.ok()) << work.status();
  ASSERT_EQ(work->size(), 1u);
  EXPECT_EQ((*work)[0].event_work_id, expected_[2].id) << "the perspective event is offered again";
}

TEST_F(StoreRequeueCommandTests, RequeueAllRequeuesEveryDeadLetter) {
  const CliRun r = run_binary({"store", "requeue", path_, "--all"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "requeued 5 dead letters\n");
  EXPECT_TRUE(listed_ids().empty());
  EXPECT_EQ(run_binary({"store", "dead-letters", path_}).out, "no dead letters in " + path_ + "\n");
  const CliRun again = run_binary({"store", "requeue", path_, "--all"});
  EXPECT_EQ(again.out, "requeued 0 dead letters\n");

  auto store = open_store();
  ASSERT_NE(store, nullptr);
  const std::vector<WorkItem> items = claim(*store);
  EXPECT_EQ(count_id(items, expected_[0].id), 1);
  EXPECT_EQ(count_id(items, expected_[1].id), 1);
  auto lifecycle = store->claim_lifecycle_work(10);
  ASSERT_TRUE(lifecycle.ok()) << lifecycle.status();
  ASSERT_EQ(lifecycle->size(), 1u);
  EXPECT_EQ((*lifecycle)[0].event_id, expected_[3].id);
  auto detached = store->claim_detached_work(10);
  ASSERT_TRUE(detached.ok()) << detached.status();
  ASSERT_EQ(detached->size(), 1u);
  EXPECT_EQ((*detached)[0].work_id, expected_[4].id);
}

TEST_F(StoreRequeueCommandTests, IdsThatMatchNoDeadLetterCountZeroAndAreNamed) {
  const std::string unknown = "0190f3c4-1a2b-7c3d-8e4f-00000000dead";
  const std::string live = live_outbox_[0].to_string();  // a row, but not a dead letter
  const CliRun none = run_binary({"store", "requeue", path_, unknown});
  EXPECT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(none.out, "requeued 0 dead letters (no dead letter has id " + unknown + ")\n");
  const CliRun some =
      run_binary({"store", "requeue", path_, unknown, expected_[3].id.to_string(), live});
  EXPECT_EQ(some.code, 0) << some.err;
  EXPECT_EQ(some.out,
            "requeued 1 dead letter (no dead letter has id " + unknown + ", " + live + ")\n");
  EXPECT_EQ(listed_ids(), expected_ids({0, 1, 2, 4}));
}

TEST_F(StoreDeadLetterCommandsTests, BadInputPrintsOneLineExits2AndTouchesNothing) {
  const std::string missing = dir_.file("missing.db");
  const std::string text_file = dir_.file("notes.txt");
  std::ofstream(text_file) << "this is not a database, just some text that is long enough\n";
  const std::string empty_file = dir_.file("empty.db");
  std::ofstream{empty_file};
  const std::string foreign = dir_.file("foreign.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  const std::string directory = dir_.file("a_dir");
  std::filesystem::create_directories(directory);
  const std::string id = expected_[0].id.to_string();

  const auto files_before = listing(std::filesystem::path(path_).parent_path());
  const std::vector<std::string> checked = {path_, text_file, empty_file, foreign};
  std::vector<test::FileIdentity> before;
  for (const std::string& file : checked) before.push_back(identity(file));

  const std::vector<BadInput> cases = {
      {{"store", "requeue"}, "store requeue: FILE is required"},
      {{"store", "requeue", path_}, "needs --all or at least one ID"},
      {{"store", "requeue", path_, "--all", id}, "--all or IDs, not both"},
      {{"store", "requeue", path_, "not-a-uuid"}, "ID 'not-a-uuid': malformed uuid"},
      {{"store", "requeue", path_, id, "0190f3c4-zzzz"}, "ID '0190f3c4-zzzz'"},
      {{"store", "requeue", path_, "--all=yes"}, "store requeue: --all takes no value"},
      {{"store", "requeue", path_, "--bogus"}, "store requeue: unknown option --bogus"},
      {{"store", "requeue", path_, "--json", "--all"},
       "unknown option --json (options: --help, --pg, --all)"},
      {{"store", "requeue", missing, "--all"}, "no such file"},
      {{"store", "requeue", missing, id}, "no such file"},
      {{"store", "requeue", directory, "--all"}, "is a directory"},
      {{"store", "requeue", text_file, "--all"}, "is not an SQLite database"},
      {{"store", "requeue", empty_file, "--all"}, "not a Whizbang store"},
      {{"store", "requeue", foreign, id}, "not a Whizbang store"},
      {{"store", "dead-letters"}, "store dead-letters: FILE is required"},
      {{"store", "dead-letters", path_, path_}, "store dead-letters: unexpected argument"},
      {{"store", "dead-letters", missing}, "no such file"},
      {{"store", "dead-letters", directory}, "is a directory"},
      {{"store", "dead-letters", text_file}, "is not an SQLite database"},
      {{"store", "dead-letters", empty_file, "--json"}, "not a Whizbang store"},
      {{"store", "dead-letters", foreign}, "not a Whizbang store"},
      {{"store", "dead-letters", path_, "--limit", "0"}, "--limit: must be >= 1; got 0"},
      {{"store", "dead-letters", path_, "--limit", "2147483648"}, "--limit: must be <= 2147483647"},
      {{"store", "dead-letters", path_, "--limit", "ten"}, "--limit: must be a whole number"},
      {{"store", "dead-letters", path_, "--limit"},
       "store dead-letters: --limit needs a value (try: whizbang store dead-letters --help)"},
      {{"store", "dead-letters", path_, "--recent", "1"}, "unknown option --recent"},
      {{"store", "dead-letters", path_, "--all"}, "unknown option --all"},
  };
  for (const BadInput& c : cases) {
    const CliRun r = run_binary(c.args);
    EXPECT_EQ(r.code, kExitUsage) << c.expected_error << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("whizbang: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expected_error), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }

  EXPECT_FALSE(std::filesystem::exists(missing)) << "requeue created a store for a missing path";
  for (std::size_t i = 0; i < checked.size(); ++i) {
    EXPECT_TRUE(identity(checked[i]) == before[i]) << checked[i] << " was modified";
  }
  EXPECT_EQ(listing(std::filesystem::path(path_).parent_path()), files_before);
  EXPECT_EQ(listed_ids().size(), 5u) << "no bad input requeued anything";
}

}  // namespace
}  // namespace whizbang::cli
