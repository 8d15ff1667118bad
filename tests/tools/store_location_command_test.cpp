// Which backend a `whizbang store` FILE names: a SQLite path may hold '=' (a directory "a=b", a
// file "orders=1.db") and is still a SQLite path; only key=value pairs of libpq's keywords are a
// PostgreSQL conninfo (docs/guide/06-stores-and-workers.md, "Store locations").
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_test_run.hpp"
#include "store_test_support.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang::cli {
namespace {

using store_test::outbox_message;
using store_test::ShipOrderCommand;
using test::CliRun;
using test::run_binary;

// A closed SQLite store with one outbox row at `path` (its directory created).
void make_store_at(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  auto store = SqliteWorkStore::open(path.string());
  ASSERT_TRUE(store.ok()) << store.status();
  const OutboxMessage row = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
  ASSERT_TRUE((*store)->store_outbox_messages({&row, 1}).ok());
}

TEST(StoreLocationCommandTests, SqlitePathsWithAnEqualsSign_OpenTheSqliteFile) {
  store_test::TempDir dir;
  const std::vector<std::filesystem::path> paths = {
      std::filesystem::path(dir.file("a=b")) / "orders.db",
      std::filesystem::path(dir.file("host=db dbname=orders")) / "orders.db",
      dir.file("orders=1.db"),
  };
  for (const std::filesystem::path& path : paths) {
    SCOPED_TRACE(path.string());
    make_store_at(path);
    const CliRun inspect = run_binary({"store", "inspect", path.string()});
    EXPECT_EQ(inspect.code, 0) << inspect.err;
    EXPECT_EQ(inspect.out.rfind("store: " + path.string() + " (schema version", 0), 0u)
        << inspect.out;
    const CliRun letters = run_binary({"store", "dead-letters", path.string()});
    EXPECT_EQ(letters.code, 0) << letters.err;
    EXPECT_EQ(letters.out, "no dead letters in " + path.string() + "\n");
  }
}

TEST(StoreLocationCommandTests, MissingSqlitePathWithAnEqualsSign_IsNoSuchFile) {
  store_test::TempDir dir;
  const std::string missing = (std::filesystem::path(dir.file("a=b")) / "orders.db").string();
  const CliRun r = run_binary({"store", "inspect", missing});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(r.err, "whizbang: '" + missing + "': no such file\n");
}

// The explicit forms decide whatever the rest looks like.
TEST(StoreLocationCommandTests, SqlitePrefix_NamesAFileEvenWhenItReadsAsAConninfo) {
  store_test::TempDir dir;
  const std::filesystem::path path = std::filesystem::path(dir.file("d")) / "dbname=orders";
  make_store_at(path);
  const CliRun r = run_binary({"store", "inspect", "sqlite:" + path.string()});
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
}  // namespace whizbang::cli
