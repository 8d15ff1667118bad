// PostgresPerspectives::list_perspective_models: a perspective's models, a page at a time.
#include "postgres/postgres_core.hpp"
#include "postgres/postgres_perspectives.hpp"
#include "postgres/sql/models_sql.hpp"

namespace whizbang {

using postgres::Query;

absl::StatusOr<std::vector<PerspectiveModelEntry>> PostgresPerspectives::list_perspective_models(
    std::string_view perspective, const std::optional<Uuid>& after_stream, std::size_t limit) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<PerspectiveModelEntry>> {
    Query query(*core_.connection, after_stream ? postgres::sql::kListPerspectiveModelsAfter
                                                : postgres::sql::kListPerspectiveModelsFirst);
    query.bind_text(1, perspective);
    const auto rows = static_cast<std::int64_t>(limit);
    if (after_stream) {
      query.bind_uuid(2, *after_stream);
      query.bind_int(3, rows);
    } else {
      query.bind_int(2, rows);
    }
    std::vector<PerspectiveModelEntry> page;
    while (true) {
      WB_ASSIGN_OR_RETURN(bool row, query.step());
      if (!row) break;
      page.push_back({query.uuid(0),
                      {query.text(1), MessageId::from_trusted(query.uuid(2)),
                       from_unix_micros(query.int64(3))}});
    }
    return page;
  });
}

}  // namespace whizbang
