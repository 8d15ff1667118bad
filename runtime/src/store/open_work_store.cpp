#include "whizbang/store/open_work_store.hpp"

#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

StoreLocation parse_store_location(std::string_view location) {
  if (location == "memory:") return {StoreBackend::Memory, ""};
  if (starts_with(location, "sqlite:")) {
    return {StoreBackend::Sqlite, std::string(location.substr(7))};
  }
  if (location == "postgresql:" || location == "postgres:") return {StoreBackend::Postgres, ""};
  // A URI, or libpq's key=value form ("host=db dbname=orders"); a store file's path has no '='.
  if (starts_with(location, "postgresql://") || starts_with(location, "postgres://") ||
      location.find('=') != std::string_view::npos) {
    return {StoreBackend::Postgres, std::string(location)};
  }
  return {StoreBackend::Sqlite, std::string(location)};
}

absl::StatusOr<std::unique_ptr<WorkStore>> open_work_store(std::string_view location,
                                                           StoreOptions options) {
  StoreLocation parsed = parse_store_location(location);
  switch (parsed.backend) {
    case StoreBackend::Memory:
      return std::unique_ptr<WorkStore>(std::make_unique<MemoryWorkStore>(std::move(options)));
    case StoreBackend::Postgres: {
      auto store = PostgresWorkStore::open(std::move(parsed.target), std::move(options));
      if (!store.ok()) return store.status();
      return std::unique_ptr<WorkStore>(*std::move(store));
    }
    case StoreBackend::Sqlite:
      break;
  }
  auto store = SqliteWorkStore::open(parsed.target, std::move(options));
  if (!store.ok()) return store.status();
  return std::unique_ptr<WorkStore>(*std::move(store));
}

}  // namespace whizbang
