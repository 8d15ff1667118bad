// The WorkStore implementations the contract suites run against, as a typed-test list (the
// PostgreSQL one on the run's throwaway server: the suite needs the `postgres` CTest fixture):
//   TYPED_TEST_SUITE(MyContractTest, store_test::Backends, store_test::BackendNames);
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>

#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace store_test {

struct MemoryBackend {
  static std::unique_ptr<whizbang::WorkStore> open(whizbang::StoreOptions options, const TempDir&) {
    return std::make_unique<whizbang::MemoryWorkStore>(std::move(options));
  }
};
struct SqliteBackend {
  static std::unique_ptr<whizbang::WorkStore> open(whizbang::StoreOptions options,
                                                   const TempDir& dir) {
    auto store = whizbang::SqliteWorkStore::open(dir.file("store.db"), std::move(options));
    EXPECT_TRUE(store.ok()) << store.status();
    return *std::move(store);
  }
};

// Each store gets a schema of its own on the run's throwaway server.
struct PostgresBackend {
  static std::unique_ptr<whizbang::WorkStore> open(whizbang::StoreOptions options, const TempDir&) {
    const std::string conninfo = whizbang_test::fresh_postgres_schema();
    if (conninfo.empty()) return nullptr;
    auto store = whizbang::PostgresWorkStore::open(conninfo, std::move(options));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }
};

// A typed suite's fixture: a store of `Backend` for an "orders" instance, on a clock the test
// moves by hand.
template <class Backend>
class BackendStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.instance = instance("orders");
    options_.now = clock_.fn();
    store_ = Backend::open(options_, dir_);
    ASSERT_NE(store_, nullptr);
  }

  TempDir dir_;
  ManualClock clock_;
  whizbang::StoreOptions options_;
  std::unique_ptr<whizbang::WorkStore> store_;
};

using Backends = ::testing::Types<MemoryBackend, SqliteBackend, PostgresBackend>;
class BackendNames {
 public:
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, MemoryBackend>) return "Memory";
    if constexpr (std::is_same_v<T, SqliteBackend>) return "Sqlite";
    return "Postgres";
  }
};

}  // namespace store_test
