// open_work_store: one configuration string picks the backend.
#include "whizbang/store/open_work_store.hpp"

#include <gtest/gtest.h>

#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace store_test {
namespace {

using whizbang::StoreBackend;

TEST(OpenWorkStoreTests, Locations_NameTheirBackend) {
  struct Case {
    std::string_view location;
    StoreBackend backend;
    std::string_view target;
  };
  const Case cases[] = {
      {"orders.db", StoreBackend::Sqlite, "orders.db"},
      {"/var/lib/shop/orders.db", StoreBackend::Sqlite, "/var/lib/shop/orders.db"},
      {"sqlite:orders=1.db", StoreBackend::Sqlite, "orders=1.db"},
      {"memory:", StoreBackend::Memory, ""},
      {"postgresql://orders@db/orders", StoreBackend::Postgres, "postgresql://orders@db/orders"},
      {"postgres://db/orders", StoreBackend::Postgres, "postgres://db/orders"},
      {"host=db dbname=orders", StoreBackend::Postgres, "host=db dbname=orders"},
      {"postgresql:", StoreBackend::Postgres, ""},
      // '=' alone does not make a conninfo: paths, and words that are no libpq keyword.
      {"/tmp/a=b/orders.db", StoreBackend::Sqlite, "/tmp/a=b/orders.db"},
      {"a=b/orders.db", StoreBackend::Sqlite, "a=b/orders.db"},
      {"./host=db", StoreBackend::Sqlite, "./host=db"},
      {"orders=1.db", StoreBackend::Sqlite, "orders=1.db"},
      {"backup=monday orders.db", StoreBackend::Sqlite, "backup=monday orders.db"},
      {"host=db bogus", StoreBackend::Sqlite, "host=db bogus"},
      // libpq's key=value forms: spaces around '=', quoted values, a socket directory.
      {"host=/var/run/postgresql dbname=orders", StoreBackend::Postgres,
       "host=/var/run/postgresql dbname=orders"},
      {"dbname = orders  user=ops", StoreBackend::Postgres, "dbname = orders  user=ops"},
      {"options='-csearch_path=orders' password='it\\'s \\\\ x'", StoreBackend::Postgres,
       "options='-csearch_path=orders' password='it\\'s \\\\ x'"},
      {" sslmode=require", StoreBackend::Postgres, " sslmode=require"},
      // A known keyword beside a misspelt one is still meant for libpq, which names the typo.
      {"host=db dbnme=orders", StoreBackend::Postgres, "host=db dbnme=orders"},
  };
  for (const Case& c : cases) {
    const whizbang::StoreLocation parsed = whizbang::parse_store_location(c.location);
    EXPECT_EQ(parsed.backend, c.backend) << c.location;
    EXPECT_EQ(parsed.target, c.target) << c.location;
  }
}

TEST(OpenWorkStoreTests, AnExistingFileThatReadsAsAConninfo_IsThatFile) {
  TempDir dir;
  const std::string path = dir.file("dbname=orders");
  ASSERT_TRUE(whizbang::SqliteWorkStore::open(path).ok());
  const std::string cwd = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::path(path).parent_path());
  const whizbang::StoreLocation parsed = whizbang::parse_store_location("dbname=orders");
  std::filesystem::current_path(cwd);
  EXPECT_EQ(parsed.backend, StoreBackend::Sqlite);
  EXPECT_EQ(parsed.target, "dbname=orders");
}

TEST(OpenWorkStoreTests, EachBackend_OpensFromItsLocation) {
  TempDir dir;
  auto memory = whizbang::open_work_store("memory:");
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_NE(dynamic_cast<whizbang::MemoryWorkStore*>(memory->get()), nullptr);

  auto sqlite = whizbang::open_work_store(dir.file("orders.db"));
  ASSERT_TRUE(sqlite.ok()) << sqlite.status();
  EXPECT_NE(dynamic_cast<whizbang::SqliteWorkStore*>(sqlite->get()), nullptr);

  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  auto postgres = whizbang::open_work_store(conninfo);
  ASSERT_TRUE(postgres.ok()) << postgres.status();
  EXPECT_NE(dynamic_cast<whizbang::PostgresWorkStore*>(postgres->get()), nullptr);
}

TEST(OpenWorkStoreTests, PostgresWithoutConninfo_IsAClearError) {
  const char* saved = std::getenv("WHIZBANG_PG_CONNINFO");
  const std::string kept = saved != nullptr ? saved : "";
  ::unsetenv("WHIZBANG_PG_CONNINFO");
  auto store = whizbang::open_work_store("postgresql:");
  if (!kept.empty()) ::setenv("WHIZBANG_PG_CONNINFO", kept.c_str(), 1);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(store.status())) << store.status();
  EXPECT_NE(std::string(store.status().message()).find("WHIZBANG_PG_CONNINFO"), std::string::npos);
}

}  // namespace
}  // namespace store_test
