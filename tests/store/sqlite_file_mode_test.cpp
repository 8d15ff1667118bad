// The SQLite store's files are the owner's alone (or the mode configured), whatever the umask:
// they hold payloads and user ids (docs/guide/06-stores-and-workers.md, "Files").
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "store_test_support.hpp"
#include "support/temp_dir.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang {
namespace {

unsigned mode_of(const std::string& path) {
  struct stat info{};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return static_cast<unsigned>(info.st_mode & 0777);
}

// Sets the process umask for the test's duration.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : previous_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(previous_); }

 private:
  mode_t previous_;
};

// Opens a store at `path` and writes to it, so the -wal and -shm files exist.
void open_and_write(const std::string& path, StoreOptions options) {
  auto store = SqliteWorkStore::open(path, std::move(options));
  ASSERT_TRUE(store.ok()) << store.status();
  std::vector<OutboxMessage> outbox = {
      store_test::outbox_message(store_test::OrderCreated{"o-1", 1}, "orders")};
  ASSERT_TRUE((*store)->store_outbox_messages(outbox).ok());
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_EQ(mode_of(path + suffix), options.file_mode) << path << suffix;
  }
}

TEST(SqliteFileModeTests, NewStore_OwnerOnly_UnderAPermissiveUmask) {
  ScopedUmask umask(0);
  whizbang_test::TempDir dir;
  open_and_write(dir.file("orders.db"), StoreOptions{});
}

TEST(SqliteFileModeTests, ConfiguredMode_AppliesUnderARestrictiveUmask) {
  ScopedUmask umask(077);
  whizbang_test::TempDir dir;
  StoreOptions options;
  options.file_mode = 0640;
  open_and_write(dir.file("orders.db"), options);
}

TEST(SqliteFileModeTests, ExistingFile_KeepsTheModeItHas) {
  whizbang_test::TempDir dir;
  const std::string path = dir.file("orders.db");
  open_and_write(path, StoreOptions{});
  ASSERT_EQ(::chmod(path.c_str(), 0660), 0);
  auto store = SqliteWorkStore::open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(mode_of(path), 0660u) << "an operator's chmod is not undone";
}

}  // namespace
}  // namespace whizbang
