// What the rewind and read-your-writes suites share: a store of each backend (a file or schema
// another process can open too), the generated registry, and reading a Trail model.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/store/postgres/postgres_work_store.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>

#include "support/postgres_schema.hpp"
#include "support/store_backend.hpp"
#include "support/temp_dir.hpp"
#include "sync_models.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace psync {

using whizbang_test::Backend;

inline const whizbang::Registry& test_registry() {
  return whizbang::generated::whizbang_perspective_sync_tests::registry();
}

// Where a test's store lives: a SQLite file or a PostgreSQL schema of its own.
class StoreLocation {
 public:
  explicit StoreLocation(Backend backend) : backend_(backend) {
    if (backend == Backend::Sqlite) {
      dir_.emplace();
      location_ = dir_->file("store.db");
    } else if (backend == Backend::Postgres) {
      location_ = whizbang_test::fresh_postgres_schema();
    }
  }

  // A store on it (each call a new one; for memory, a new empty store).
  std::unique_ptr<whizbang::WorkStore> open(whizbang::StoreOptions options) const {
    if (backend_ == Backend::Memory) return std::make_unique<whizbang::MemoryWorkStore>(options);
    if (backend_ == Backend::Postgres) {
      auto store = whizbang::PostgresWorkStore::open(location_, std::move(options));
      EXPECT_TRUE(store.ok()) << store.status();
      return store.ok() ? std::unique_ptr<whizbang::WorkStore>(*std::move(store)) : nullptr;
    }
    auto store = whizbang::SqliteWorkStore::open(location_, std::move(options));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::unique_ptr<whizbang::WorkStore>(*std::move(store)) : nullptr;
  }

  Backend backend() const { return backend_; }
  const std::string& location() const { return location_; }

 private:
  Backend backend_;
  std::optional<whizbang_test::TempDir> dir_;
  std::string location_;
};

// The stored Trail of `stream`; nullopt when none is stored.
inline std::optional<Trail> stored_trail(whizbang::WorkStore& store, const whizbang::Uuid& stream) {
  auto row = store.load_perspective_model(kTrail, stream);
  EXPECT_TRUE(row.ok()) << row.status();
  if (!row.ok() || !row->has_value()) return std::nullopt;
  const whizbang::PerspectiveInfo* info = test_registry().find_perspective(kTrail);
  EXPECT_NE(info, nullptr);
  Trail trail;
  EXPECT_TRUE(info->model_from_json((*row)->model_json, &trail).ok());
  return trail;
}

inline std::string stored_json(whizbang::WorkStore& store, const whizbang::Uuid& stream) {
  auto row = store.load_perspective_model(kTrail, stream);
  EXPECT_TRUE(row.ok()) << row.status();
  return row.ok() && row->has_value() ? (*row)->model_json : std::string();
}

}  // namespace psync
