#include "whizbang/store/open_work_store.hpp"
#include "whizbang/store/postgres/postgres_store_inspector.hpp"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"
#include "whizbang/store/store_inspector.hpp"

namespace whizbang {

absl::StatusOr<std::unique_ptr<StoreInspector>> open_store_inspector(std::string_view location) {
  StoreLocation parsed = parse_store_location(location);
  switch (parsed.backend) {
    case StoreBackend::Memory:
      return absl::InvalidArgumentError("a memory store keeps nothing to inspect");
    case StoreBackend::Postgres: {
      auto inspector = PostgresStoreInspector::open(std::move(parsed.target));
      if (!inspector.ok()) return inspector.status();
      return std::unique_ptr<StoreInspector>(*std::move(inspector));
    }
    case StoreBackend::Sqlite:
      break;
  }
  auto inspector = SqliteStoreInspector::open(parsed.target);
  if (!inspector.ok()) return inspector.status();
  return std::unique_ptr<StoreInspector>(*std::move(inspector));
}

}  // namespace whizbang
