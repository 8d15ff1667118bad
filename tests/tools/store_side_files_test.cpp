// The read-only `whizbang store` commands create no file next to a SQLite store: no -shm, no -wal.
// SQLite creates both for a read-only connection to a WAL file whenever it can, so a store whose
// -wal is absent or empty and that has no -shm (no live writer: its main file holds everything)
// is read immutable; a store with a live writer is read through the writer's -wal and -shm.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_run.hpp"
#include "store_test_support.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang::cli {
namespace {

using store_test::outbox_message;
using store_test::ShipOrderCommand;
using test::CliRun;
using test::identity;
using test::listing;
using test::run_binary;

constexpr const char* kSideFilesStream = "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356";

class StoreSideFilesTests : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("orders.db");
    auto store = SqliteWorkStore::open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    const OutboxMessage row = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
    ASSERT_TRUE((*store)->store_outbox_messages({&row, 1}).ok());
  }  // closed cleanly: checkpointed, -wal and -shm removed

  // Runs every read-only command; each must succeed.
  void read_everything() {
    const std::vector<std::vector<std::string>> commands = {
        {"store", "inspect", path_},
        {"store", "inspect", path_, "--json"},
        {"store", "stream", path_, kSideFilesStream},
        {"store", "dead-letters", path_},
        {"store", "dead-letters", path_, "--json"},
    };
    for (const std::vector<std::string>& args : commands) {
      const CliRun r = run_binary(args);
      EXPECT_EQ(r.code, 0) << args[1] << ": " << r.err;
    }
  }

  std::filesystem::path dir() const { return std::filesystem::path(path_).parent_path(); }

  store_test::TempDir dir_;
  std::string path_;
};

TEST_F(StoreSideFilesTests, CleanlyClosedStore_GetsNoSideFiles) {
  const auto files = listing(dir());
  ASSERT_EQ(files, std::vector<std::string>{"orders.db"});
  const auto before = identity(path_);
  read_everything();
  EXPECT_EQ(listing(dir()), files);
  EXPECT_TRUE(identity(path_) == before);
}

// An empty -wal without a -shm: what a store leaves when its last connection could not remove
// the WAL (a read-only opener closed last, a copy of the directory). Nothing is in it.
TEST_F(StoreSideFilesTests, EmptyWalWithoutShm_GetsNoShm) {
  std::ofstream(path_ + "-wal").close();
  const auto files = listing(dir());
  ASSERT_EQ(files, (std::vector<std::string>{"orders.db", "orders.db-wal"}));
  const auto before = identity(path_);
  read_everything();
  EXPECT_EQ(listing(dir()), files) << "a read-only command created a side file";
  EXPECT_TRUE(identity(path_) == before);
  EXPECT_EQ(std::filesystem::file_size(path_ + "-wal"), 0u);
}

// A -shm left without a -wal: nothing to read from a WAL either.
TEST_F(StoreSideFilesTests, ShmWithoutWal_GetsNoWal) {
  std::ofstream(path_ + "-shm").close();
  const auto files = listing(dir());
  read_everything();
  EXPECT_EQ(listing(dir()), files) << "a read-only command created a side file";
}

// A live writer: its -wal and -shm exist, and what it committed (still only in the WAL) is read.
TEST_F(StoreSideFilesTests, LiveWriter_IsReadThroughItsWal) {
  auto store = SqliteWorkStore::open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  const OutboxMessage row = outbox_message(ShipOrderCommand{"o-2"}, "shipping");
  ASSERT_TRUE((*store)->store_outbox_messages({&row, 1}).ok());
  const auto files = listing(dir());
  ASSERT_EQ(files, (std::vector<std::string>{"orders.db", "orders.db-shm", "orders.db-wal"}));
  const CliRun r = run_binary({"store", "inspect", path_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("outbox: 2 rows"), std::string::npos) << r.out;
  EXPECT_EQ(listing(dir()), files);
}

}  // namespace
}  // namespace whizbang::cli
