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
  };
  for (const Case& c : cases) {
    const whizbang::StoreLocation parsed = whizbang::parse_store_location(c.location);
    EXPECT_EQ(parsed.backend, c.backend) << c.location;
    EXPECT_EQ(parsed.target, c.target) << c.location;
  }
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
