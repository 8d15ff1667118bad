#include "whizbang/store/open_work_store.hpp"

#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang {

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
