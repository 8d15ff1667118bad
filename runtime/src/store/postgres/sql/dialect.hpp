// The PostgreSQL dialect: how its SQL spells what both backends share (sql_shapes.hpp), and the
// shapes only it has. The SQL of the PostgreSQL backend. Parameters are numbered as in the SQLite
// backend's statements (store/sqlite/sql.hpp), so both stores bind alike; every parameter is cast
// where it is used (connection.hpp). Statements are cache keys (Connection::run): each is one
// constant.
//
// Where the two backends differ, and why:
// - Outbox dedup goes through one permanent id table, wh_outbox_ids: every emitted id passes
//   its primary key once. (A tombstone checked with NOT EXISTS, as in SQLite, lets a re-emission
//   slip in while a completion's DELETE and tombstone are uncommitted under READ COMMITTED.)
// - Claims lock what they take (FOR UPDATE SKIP LOCKED) and, where stream order matters, run one
//   at a time per table (a transaction-scoped advisory lock), so a claim sees the leases every
//   earlier claim committed.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "sql_shapes.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::postgres::sql {

// $n::type: every parameter is cast where it is used (connection.hpp), and so is a NULL whose
// column type the server cannot infer.
struct Dialect {
  static std::string param(int n, std::string_view type) {
    std::string spelled = "$";  // appended, not `"$" + …`: GCC 12 warns falsely on that
    spelled += std::to_string(n);
    spelled += "::";
    spelled += type;
    return spelled;
  }
  static constexpr std::string_view kNullUuid = "NULL::uuid";
  static constexpr std::string_view kNullBigint = "NULL::bigint";
};

namespace shapes = store_internal::sql_shapes;
using shapes::number;
using shapes::table;

// The lease and retry rules every failing table shares (sql_shapes.hpp), in this dialect.
inline const std::string kOwnedBy2 = shapes::owned_by_2<Dialect>();
inline std::string failure_columns() { return shapes::failure_columns<Dialect>(); }
inline std::string failure_reason_columns() { return shapes::failure_reason_columns<Dialect>(); }

// Advisory lock keys: claims of one table take turns (see above).
enum class ClaimLock : std::int64_t {
  Outbox = 0x57680001,
  Inbox = 0x57680002,
  Perspectives = 0x57680003,
};
inline ClaimLock claim_lock(WorkSource source) {
  return source == WorkSource::Outbox ? ClaimLock::Outbox : ClaimLock::Inbox;
}
// ?1 key
inline const std::string kClaimLock = "SELECT pg_advisory_xact_lock($1::bigint)";

}  // namespace whizbang::postgres::sql
