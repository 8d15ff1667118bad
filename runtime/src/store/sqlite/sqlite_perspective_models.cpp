// SqlitePerspectives::list_perspective_models: a perspective's models, a page at a time.
#include "sqlite/sql/models_sql.hpp"
#include "sqlite/sqlite_core.hpp"
#include "sqlite/sqlite_perspectives.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<std::vector<PerspectiveModelEntry>> SqlitePerspectives::list_perspective_models(
    std::string_view perspective, const std::optional<Uuid>& after_stream, std::size_t limit) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<PerspectiveModelEntry>> {
    WB_ASSIGN_OR_RETURN(
        sqlite3_stmt * stmt,
        core_.connection->prepare(after_stream ? sqlite::sql::kListPerspectiveModelsAfter
                                               : sqlite::sql::kListPerspectiveModelsFirst));
    Use use(*core_.connection, stmt);
    use.bind_text(1, perspective);
    const auto rows = static_cast<std::int64_t>(limit);
    if (after_stream) {
      use.bind_uuid(2, *after_stream);
      use.bind_int(3, rows);
    } else {
      use.bind_int(2, rows);
    }
    std::vector<PerspectiveModelEntry> page;
    while (true) {
      WB_ASSIGN_OR_RETURN(bool row, use.step());
      if (!row) break;
      page.push_back(
          {use.uuid(0),
           {use.text(1), MessageId::from_trusted(use.uuid(2)), from_unix_micros(use.int64(3))}});
    }
    return page;
  });
}

}  // namespace whizbang
