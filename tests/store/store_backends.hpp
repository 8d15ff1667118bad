// The WorkStore implementations the contract suites run against, as a typed-test list:
//   TYPED_TEST_SUITE(MyContractTest, store_test::Backends, store_test::BackendNames);
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>

#include "store_test_support.hpp"
#include "whizbang/store/memory_work_store.hpp"
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

using Backends = ::testing::Types<MemoryBackend, SqliteBackend>;
class BackendNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, MemoryBackend> ? "Memory" : "Sqlite";
  }
};

}  // namespace store_test
