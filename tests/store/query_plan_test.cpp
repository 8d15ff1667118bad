// QueryPlanTests: the store's hot statements (claims, the dedup and stream checks, the retention
// purge) use the indexes meant for them, so their cost follows the batch, not the backlog. A
// change that turns one into a scan of a work table, or a sort of all of it, fails here rather
// than in production (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN on tables of 5k rows,
// under the statistics a work table really has: analyzed with the backlog, vacuumed while empty,
// analyzed while another instance held the leases; docs/guide/12-postgresql.md, "Plans that do
// not trust the statistics").
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <string>
#include <utility>
#include <vector>

#include "postgres/sql/coordination_sql.hpp"
#include "postgres/sql/operations_sql.hpp"
#include "postgres/sql/perspectives_sql.hpp"
#include "postgres/sql/stage_work_sql.hpp"
#include "postgres/sql/sync_sql.hpp"
#include "sqlite/sql/coordination_sql.hpp"
#include "sqlite/sql/operations_sql.hpp"
#include "sqlite/sql/perspectives_sql.hpp"
#include "sqlite/sql/stage_work_sql.hpp"
#include "sqlite/sql/storage_sql.hpp"
#include "sqlite/sql/sync_sql.hpp"
#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace store_test {
namespace {

using whizbang::WorkSource;
namespace lite = whizbang::sqlite::sql;
namespace pg = whizbang::postgres::sql;

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out.append("\n  ").append(line);
  return out;
}
bool any_line_has(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

// ---- SQLite --------------------------------------------------------------------------------

class SqliteQueryPlanTests : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = whizbang::SqliteWorkStore::open(dir_.file("store.db"), {});  // migrated
    ASSERT_TRUE(store.ok()) << store.status();
    store->reset();
    ASSERT_EQ(sqlite3_open(dir_.file("store.db").c_str(), &db_), SQLITE_OK);
  }
  void TearDown() override { sqlite3_close(db_); }

  // The plan's lines (EXPLAIN QUERY PLAN's detail column).
  std::vector<std::string> plan(const std::string& sql) {
    std::vector<std::string> lines;
    sqlite3_stmt* statement = nullptr;
    const std::string explain = "EXPLAIN QUERY PLAN " + sql;
    EXPECT_EQ(sqlite3_prepare_v2(db_, explain.c_str(), -1, &statement, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_) << "\n"
        << sql;
    while (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
      lines.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement, 3)));
    }
    sqlite3_finalize(statement);
    return lines;
  }
  // Every table is reached through an index or its key, except `scanned` (walked in key order,
  // stopping at the LIMIT), and nothing is sorted whole.
  void expect_indexed(const std::string& sql, const std::vector<std::string>& uses,
                      const std::string& scanned = "") {
    const std::vector<std::string> lines = plan(sql);
    ASSERT_FALSE(lines.empty()) << sql;
    for (const std::string& line : lines) {
      const bool bare_scan = line.rfind("SCAN ", 0) == 0 &&
                             line.find(" USING ") == std::string::npos &&
                             line != "SCAN CONSTANT ROW";
      if (bare_scan) {
        EXPECT_EQ(line, "SCAN " + scanned) << "a table scan:" << joined(lines);
      }
      EXPECT_NE(line, "USE TEMP B-TREE FOR ORDER BY") << "a sort of every row:" << joined(lines);
    }
    for (const std::string& use : uses) {
      EXPECT_TRUE(any_line_has(lines, use)) << "expected " << use << " in" << joined(lines);
    }
  }

  TempDir dir_;
  sqlite3* db_ = nullptr;
};

TEST_F(SqliteQueryPlanTests, OutboxAndInboxClaims_WalkTheKeyInOrder_StreamCheckByIndex) {
  // wh_outbox and wh_inbox are WITHOUT ROWID: their scan is the key's order, cut by the LIMIT.
  expect_indexed(lite::claimable(WorkSource::Outbox), {"USING INDEX wh_outbox_stream"}, "r");
  expect_indexed(lite::claimable(WorkSource::Inbox), {"USING INDEX wh_inbox_stream"}, "r");
}

TEST_F(SqliteQueryPlanTests, PerspectiveClaim_UsesTheLaneIndex) {
  expect_indexed(lite::kClaimablePerspectiveWork,
                 {"SCAN pe USING INDEX", "USING INDEX wh_perspective_events_lane",
                  "SEARCH es USING PRIMARY KEY"});
}

// Both tables are WITHOUT ROWID: their scan is the key's order, cut by the LIMIT; never the
// whole backlog read and sorted per claim.
TEST_F(SqliteQueryPlanTests, StageWorkClaims_WalkTheKeyInOrder) {
  expect_indexed(lite::kClaimableLifecycleWork, {"SEARCH es USING PRIMARY KEY"}, "lc");
  expect_indexed(lite::kClaimableDetachedWork, {}, "wh_detached_work");
}

// Read-your-writes: an event's rows looked up by its id (the pending ones sorted by name, a few
// rows, after the lookup).
TEST_F(SqliteQueryPlanTests, ReadYourWritesChecks_FindTheEventByKey) {
  expect_indexed(lite::kEventStored, {"SEARCH wh_event_store USING"});
  EXPECT_EQ(plan(lite::kEventPendingPerspectives),
            (std::vector<std::string>{"SEARCH wh_perspective_events USING INDEX "
                                      "wh_perspective_events_event_id (event_id=?)",
                                      "USE TEMP B-TREE FOR ORDER BY"}));
}

TEST_F(SqliteQueryPlanTests, DedupAndStreamChecks_AreKeyLookups) {
  expect_indexed(lite::kInsertOutbox, {"wh_outbox_tombstones USING PRIMARY KEY"});
  expect_indexed(lite::kInboxStreamWaits, {"USING INDEX wh_inbox_stream"});
  expect_indexed(lite::kStreamMaxVersion, {"wh_event_store USING COVERING INDEX"});
}

TEST_F(SqliteQueryPlanTests, RetentionPurges_ReadOnlyTheExpiredRows) {
  expect_indexed(lite::kPurgeDeduplication, {"wh_message_deduplication_first_seen_at"});
  expect_indexed(lite::kPurgeTombstones, {"wh_outbox_tombstones_stored_at"});
  expect_indexed(lite::kPurgeInvocations, {"wh_receptor_invocations_completed_at"});
  expect_indexed(lite::kPurgeDispatchKeys, {"wh_dispatch_keys_first_seen_at"});
  expect_indexed(lite::kPurgeRefusedDeliveries, {"wh_inbox_refused_dead_lettered_at"});
}

// ---- PostgreSQL ----------------------------------------------------------------------------

// What the planner knows of the work tables when a backlog arrives.
enum class Statistics {
  // Analyzed with the backlog in them: the choice the planner makes at scale.
  Analyzed,
  // Last vacuumed while empty (reltuples 0 over pages left by earlier rows), as a queue table
  // usually is when a burst arrives: the planner believes the backlog is not there, and every
  // index of a table looks as cheap as any other.
  VacuumedWhileEmpty,
  // The same, the empty pages given back too (the table has no pages, as far as its statistics
  // say): every index path costs the planner next to nothing.
  VacuumedEmptyAndShrunk,
  // Analyzed while another instance held every row's lease (a busy peer's batch): the planner
  // believes almost no row is claimable, so an ordered walk that stops at the LIMIT looks as
  // dear as reading and sorting the whole table.
  AnalyzedWhileLeasedElsewhere,
};

std::string statistics_name(const ::testing::TestParamInfo<Statistics>& info) {
  switch (info.param) {
    case Statistics::Analyzed:
      return "Analyzed";
    case Statistics::VacuumedWhileEmpty:
      return "VacuumedWhileEmpty";
    case Statistics::VacuumedEmptyAndShrunk:
      return "VacuumedEmptyAndShrunk";
    case Statistics::AnalyzedWhileLeasedElsewhere:
      return "AnalyzedWhileLeasedElsewhere";
  }
  return "Unknown";
}

class PostgresQueryPlanTests : public ::testing::TestWithParam<Statistics> {
 protected:
  // Rows per table. With fewer rows a scan only gets cheaper against an index, so a plan that
  // walks the index here walks it at scale too. Dropped indexes and statements planned without
  // their plan settings failed the same cases at 5k as at 20k rows (16 s for the suite against
  // 43 s).
  static constexpr int kRows = 5'000;

  void SetUp() override {
    const std::string conninfo = whizbang_test::fresh_postgres_schema();
    ASSERT_FALSE(conninfo.empty());
    auto store = whizbang::PostgresWorkStore::open(conninfo, {});  // migrated
    ASSERT_TRUE(store.ok()) << store.status();
    store->reset();
    conn_ = PQconnectdb(conninfo.c_str());
    ASSERT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
    // The statistics are this test's: no autovacuum or autoanalyze changes them under it.
    for (const char* table : kWorkTables) {
      run(std::string("ALTER TABLE ") + table + " SET (autovacuum_enabled = false)");
    }
    if (GetParam() == Statistics::VacuumedWhileEmpty ||
        GetParam() == Statistics::VacuumedEmptyAndShrunk) {
      const bool shrink = GetParam() == Statistics::VacuumedEmptyAndShrunk;
      insert_work_rows();
      for (const char* table : kWorkTables) {
        run(std::string("DELETE FROM ") + table);
        run(std::string("VACUUM (TRUNCATE ") + (shrink ? "true) " : "false) ") + table);
        ASSERT_EQ(
            whizbang_test::postgres_scalar(
                conninfo, std::string("SELECT reltuples::bigint FROM pg_class WHERE oid = '") +
                              table + "'::regclass"),
            0)
            << table << ": the planner should believe it empty";
      }
      insert_work_rows();
      insert_kept_rows();
      for (const char* table : kKeptTables) run(std::string("ANALYZE ") + table);
    } else if (GetParam() == Statistics::AnalyzedWhileLeasedElsewhere) {
      insert_work_rows();
      insert_kept_rows();
      for (const char* table : kWorkTables) {
        run(std::string("UPDATE ") + table + " SET instance_id = " + kOtherInstance +
            ", lease_expiry = 9000000");
      }
      analyze_every_table();
      for (const char* table : kWorkTables) {
        run(std::string("UPDATE ") + table + " SET instance_id = NULL, lease_expiry = NULL");
      }
    } else {
      insert_work_rows();
      insert_kept_rows();
      analyze_every_table();
    }
  }

  // This schema's tables only (a bare ANALYZE reads every schema of the database).
  void analyze_every_table() {
    for (const char* table : kWorkTables) run(std::string("ANALYZE ") + table);
    for (const char* table : kKeptTables) run(std::string("ANALYZE ") + table);
  }

  static constexpr const char* kOtherInstance = "'00000000-0000-0000-0000-000000000002'::uuid";

  // Tables whose rows come and go (a backlog, then nothing), and tables whose rows are kept.
  static constexpr const char* kWorkTables[] = {"wh_outbox", "wh_inbox", "wh_perspective_events",
                                                "wh_lifecycle_completions", "wh_detached_work"};
  static constexpr const char* kKeptTables[] = {"wh_event_store", "wh_message_deduplication",
                                                "wh_dispatch_keys", "wh_receptor_invocations"};

  // Rows like a backlog's: ten per stream, pending, unleased.
  void insert_work_rows() {
    const std::string n = std::to_string(kRows);
    for (const std::string& table : {std::string("wh_outbox"), std::string("wh_inbox")}) {
      const bool outbox = table == "wh_outbox";
      run("INSERT INTO " + table + " (message_id, " + (outbox ? "destination" : "handler_name") +
          ", message_type, event_data, stream_id, is_event, " +
          (outbox ? "created_at" : "received_at") +
          ") SELECT md5('m' || i)::uuid, 'orders', 't', '{}', md5('s' || (i / 10))::uuid, true, i "
          "FROM generate_series(1, " +
          n + ") AS i");
    }
    run("INSERT INTO wh_perspective_events (event_work_id, stream_id, perspective_name, event_id, "
        "stream_version, created_at) SELECT md5('w' || i)::uuid, md5('s' || (i / 10))::uuid, 'p', "
        "md5('e' || i)::uuid, i % 10 + 1, i FROM generate_series(1, " +
        n + ") AS i");
    // Lifecycle work for the kept events (insert_kept_rows), detached work for the messages.
    run("INSERT INTO wh_lifecycle_completions (event_id, stream_id, created_at) SELECT "
        "md5('e' || i)::uuid, md5('s' || (i / 10))::uuid, i FROM generate_series(1, " +
        n + ") AS i");
    run("INSERT INTO wh_detached_work (work_id, message_id, message_type, receptor_id, stage, "
        "perspective, envelope, created_at) SELECT md5('dw' || i)::uuid, md5('m' || i)::uuid, "
        "'t', 'shop::Mailer', 0, '', '{}', i FROM generate_series(1, " +
        n + ") AS i");
  }

  void insert_kept_rows() {
    const std::string n = std::to_string(kRows);
    run("INSERT INTO wh_event_store (event_id, stream_id, aggregate_id, aggregate_type, "
        "event_type, event_data, metadata, version, created_at) SELECT md5('e' || i)::uuid, "
        "md5('s' || (i / 10))::uuid, md5('s' || (i / 10))::uuid, 't', 't', '{}', '{}', i % 10 + 1, "
        "i FROM generate_series(1, " +
        n + ") AS i");
    run("INSERT INTO wh_message_deduplication (message_id, first_seen_at) SELECT "
        "md5('d' || i)::uuid, i FROM generate_series(1, " +
        n + ") AS i");
    run("INSERT INTO wh_dispatch_keys (message_id, first_seen_at) SELECT md5('k' || i)::uuid, i "
        "FROM generate_series(1, " +
        n + ") AS i");
    run("INSERT INTO wh_receptor_invocations (message_id, receptor_id, service_name, perspective, "
        "stage, completed_at, duration_us) SELECT md5('r' || i)::uuid, 'shop::Mailer', 'orders', "
        "'', 0, i, 1 FROM generate_series(1, " +
        n + ") AS i");
  }

  void TearDown() override {
    if (conn_ != nullptr) PQfinish(conn_);
  }

  void run(const std::string& sql) {
    PGresult* result = PQexec(conn_, sql.c_str());
    const ExecStatusType status = PQresultStatus(result);
    EXPECT_TRUE(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        << PQerrorMessage(conn_) << "\n"
        << sql;
    PQclear(result);
  }
  // The plan of `sql` executed with `arguments` (a custom plan: the values are known).
  // `types`: the parameters' types, in order (a statement may leave one unused).
  std::vector<std::string> plan(const std::string& sql, const std::string& types,
                                const std::string& arguments,
                                const std::vector<std::string>& settings = {}) {
    run("BEGIN");
    for (const std::string& setting : settings) run(setting);
    run("PREPARE planned (" + types + ") AS " + sql);
    std::vector<std::string> lines;
    PGresult* result = PQexec(conn_, ("EXPLAIN EXECUTE planned(" + arguments + ")").c_str());
    EXPECT_EQ(PQresultStatus(result), PGRES_TUPLES_OK) << PQerrorMessage(conn_) << "\n" << sql;
    for (int row = 0; row < PQntuples(result); ++row)
      lines.emplace_back(PQgetvalue(result, row, 0));
    PQclear(result);
    run("ROLLBACK");
    run("DEALLOCATE planned");  // a prepared statement outlives the transaction
    return lines;
  }
  // No table of the store is read whole, nor sorted whole, nor any index walked whole (see
  // expect_no_whole_index_walks); each of `uses` appears in the plan.
  void expect_indexed(const std::vector<std::string>& lines, const std::vector<std::string>& uses) {
    ASSERT_FALSE(lines.empty());
    EXPECT_FALSE(any_line_has(lines, "Seq Scan on wh_")) << "a table scan:" << joined(lines);
    for (const std::string& line : lines) {
      const bool whole_sort = line.find("Sort  (") != std::string::npos &&
                              line.find("Incremental Sort") == std::string::npos;
      EXPECT_FALSE(whole_sort) << "a sort of every row:" << joined(lines);
    }
    expect_no_whole_index_walks(lines);
    for (const std::string& use : uses) {
      EXPECT_TRUE(any_line_has(lines, use)) << "expected " << use << " in" << joined(lines);
    }
  }

  // An index scan keyed only by a later column of its index walks the whole index for each
  // probe (a planner that believes a table empty finds it as cheap as the right index: a claim
  // of 10,000 rows took 3.3 s). Every Index Cond on a work table's index starts at its first
  // column; an index walked in order without a condition (the claims' LIMIT walk) is fine.
  void expect_no_whole_index_walks(const std::vector<std::string>& lines) {
    static const std::vector<std::pair<std::string, std::string>> kLeadingColumn = {
        {"wh_outbox_pkey", "message_id"},
        {"wh_outbox_stream", "stream_id"},
        {"wh_inbox_pkey", "message_id"},
        {"wh_inbox_stream", "stream_id"},
        {"wh_perspective_events_pkey", "event_work_id"},
        {"wh_perspective_events_stream_id_perspective_name_event_id_key", "stream_id"},
        {"wh_perspective_events_event_id", "event_id"},
        {"wh_perspective_events_lane", "perspective_name"},
        {"wh_lifecycle_completions_pkey", "event_id"},
        {"wh_detached_work_pkey", "work_id"},
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
      for (const auto& [index, column] : kLeadingColumn) {
        if (lines[i].find("using " + index + " on ") == std::string::npos) continue;
        // The scan's own lines run until the next plan node ("->").
        for (std::size_t j = i + 1; j < lines.size() && lines[j].find("->") == std::string::npos;
             ++j) {
          const std::size_t cond = lines[j].find("Index Cond: ");
          if (cond == std::string::npos) continue;
          // The first condition: on the column, or a row comparison starting at it.
          std::size_t first = lines[j].find_first_not_of('(', cond + 12);
          if (lines[j].compare(first, 4, "ROW(") == 0) first += 4;
          EXPECT_EQ(lines[j].compare(first, column.size(), column), 0)
              << index << " walked whole (keyed by a later column):" << joined(lines);
        }
      }
    }
  }

  // Whether the first scan after the first line holding `node` goes through `index`.
  static bool next_scan_uses(const std::vector<std::string>& lines, const std::string& node,
                             const std::string& index) {
    std::size_t i = 0;
    while (i < lines.size() && lines[i].find(node) == std::string::npos) ++i;
    while (i < lines.size() && lines[i].find(" Scan ") == std::string::npos) ++i;
    return i < lines.size() && lines[i].find("using " + index + " on ") != std::string::npos;
  }

  PGconn* conn_ = nullptr;
};

// now, instance, limit, event-store rows only, lease expiry (coordination_sql.hpp).
constexpr const char* kClaimTypes = "bigint, uuid, bigint, boolean, bigint";
constexpr const char* kClaimArguments =
    "1000000, '00000000-0000-0000-0000-000000000001', 100, false, 2000000";

// A custom plan (the first executions of a prepared statement) and the generic plan (later
// ones, once the planner finds it no dearer), as the setting that forces each.
constexpr const char* kPlanModes[] = {"force_custom_plan", "force_generic_plan"};
// For the lookups by key: the planner's own choice between the two, and the generic plan.
constexpr const char* kLookupPlanModes[] = {"auto", "force_generic_plan"};
std::string plan_cache_mode(const std::string& mode) {
  return "SET LOCAL plan_cache_mode = " + mode;
}

// `first`, then what the store runs before its claims (kPlanByIndexes), then `mode`.
std::vector<std::string> planned_by_indexes(const std::string& mode,
                                            std::vector<std::string> first = {}) {
  first.insert(first.end(), pg::kPlanByIndexes.begin(), pg::kPlanByIndexes.end());
  first.push_back(plan_cache_mode(mode));
  return first;
}

// Each table in each plan mode.
std::vector<std::pair<WorkSource, std::string>> claim_plans() {
  std::vector<std::pair<WorkSource, std::string>> plans;
  for (const WorkSource source : {WorkSource::Outbox, WorkSource::Inbox}) {
    for (const char* mode : kPlanModes) plans.emplace_back(source, mode);
  }
  return plans;
}

// The stream-order check probes the stream index: through the key (ids before this one) it
// would read every older row of every stream, once per row claimed (10,000 rows: 11 s). The
// claimed rows are updated through their ctid.
TEST_P(PostgresQueryPlanTests, OutboxAndInboxClaims_UseTheKeyAndTheStreamIndex) {
  for (const auto& [source, mode] : claim_plans()) {
    SCOPED_TRACE(mode);
    const std::string table = source == WorkSource::Outbox ? "wh_outbox" : "wh_inbox";
    const std::vector<std::string> lines =
        plan(pg::claim(source), kClaimTypes, kClaimArguments, planned_by_indexes(mode));
    expect_indexed(lines, {table + "_pkey", table + "_stream", "TID Cond: (ctid = c.row_id)"});
    EXPECT_TRUE(next_scan_uses(lines, "SubPlan", table + "_stream")) << joined(lines);
  }
}

// The perspective claim's stream-order check probes the lane index per candidate row, never a
// join that reads the whole table (a merge anti join did, 220 ms to 1 s per claim at 1M pending).
TEST_P(PostgresQueryPlanTests, PerspectiveClaim_ProbesTheLanePerRow_NeverJoinsTheWholeTable) {
  for (const char* mode : kPlanModes) {
    SCOPED_TRACE(mode);
    const std::vector<std::string> lines = plan(
        pg::kClaimPerspectiveWork, "bigint, uuid, bigint, bigint",
        "1000000, '00000000-0000-0000-0000-000000000001', 100, 2000000", planned_by_indexes(mode));
    expect_indexed(lines, {"SubPlan", "wh_perspective_events_lane", "TID Cond: (ctid = c.row_id)"});
    EXPECT_TRUE(next_scan_uses(lines, "SubPlan", "wh_perspective_events_lane")) << joined(lines);
    EXPECT_FALSE(any_line_has(lines, "Anti Join")) << joined(lines);
  }
}

// Only the stream index can answer the stream-order check: without it (dropped inside the
// planning transaction, rolled back after) the check may not turn to the key index, whose
// range of older ids holds every stream's rows. A planner that believed the table empty chose
// the key when both could answer.
TEST_P(PostgresQueryPlanTests, OutboxAndInboxClaims_StreamCheckCannotUseTheKey) {
  for (const auto& [source, mode] : claim_plans()) {
    SCOPED_TRACE(mode);
    const std::string table = source == WorkSource::Outbox ? "wh_outbox" : "wh_inbox";
    const std::vector<std::string> lines =
        plan(pg::claim(source), kClaimTypes, kClaimArguments,
             planned_by_indexes(mode, {"DROP INDEX " + table + "_stream"}));
    EXPECT_FALSE(next_scan_uses(lines, "SubPlan", table + "_pkey")) << joined(lines);
  }
}

// The lifecycle and detached-work claims walk their key in claim order and update the rows they
// locked by their place, as the other claims do. Planned as the statistics said, they read and
// sorted the whole table (Analyzed, AnalyzedWhileLeasedElsewhere).
TEST_P(PostgresQueryPlanTests, StageWorkClaims_WalkTheKey_UpdateTheLockedRowsByTheirPlace) {
  constexpr const char* kTypes = "bigint, uuid, bigint, bigint";
  constexpr const char* kArguments =
      "1000000, '00000000-0000-0000-0000-000000000001', 100, 2000000";
  for (const auto& [claim, key] :
       {std::pair{pg::kClaimLifecycleWork, "wh_lifecycle_completions_pkey"},
        std::pair{pg::kClaimDetachedWork, "wh_detached_work_pkey"}}) {
    for (const char* mode : kPlanModes) {
      SCOPED_TRACE(mode);
      expect_indexed(plan(claim, kTypes, kArguments, planned_by_indexes(mode)),
                     {key, "TID Cond: (ctid = c.row_id)"});
    }
  }
}

// Each batch finds its rows through the age index and deletes them by ctid (a TID scan).
TEST_P(PostgresQueryPlanTests, RetentionPurges_ReadOnlyTheExpiredRows) {
  // cut-off, this instance (where used), batch size
  constexpr const char* kTypes = "bigint, uuid, bigint";
  constexpr const char* kArguments = "100, '00000000-0000-0000-0000-000000000001', 5000";
  expect_indexed(plan(pg::kPurgeDeduplication, kTypes, kArguments),
                 {"wh_message_deduplication_first_seen_at", "Tid Scan"});
  expect_indexed(plan(pg::kPurgeRefusedDeliveries, kTypes, kArguments),
                 {"wh_inbox_refused_dead_lettered_at", "Tid Scan"});
  expect_indexed(plan(pg::kPurgeInvocations, kTypes, kArguments),
                 {"wh_receptor_invocations_completed_at", "Tid Scan"});
  expect_indexed(plan(pg::kPurgeDispatchKeys, kTypes, kArguments),
                 {"wh_dispatch_keys_first_seen_at", "Tid Scan"});
}

// Completions find their rows by key, whether the statement runs with its values (a custom plan)
// or as the prepared statement's generic plan.
TEST_P(PostgresQueryPlanTests, CompletionsAndDeletes_FindTheirRowsByKey) {
  const std::string ids = "ARRAY[md5('m1')::uuid, md5('m2')::uuid, md5('m3')::uuid]";
  const std::string instance = "'00000000-0000-0000-0000-000000000001'";
  for (const std::string mode : kLookupPlanModes) {
    SCOPED_TRACE(mode);
    const std::vector<std::string> settings = {plan_cache_mode(mode)};
    for (const WorkSource source : {WorkSource::Outbox, WorkSource::Inbox}) {
      const std::string key = source == WorkSource::Outbox ? "wh_outbox_pkey" : "wh_inbox_pkey";
      expect_indexed(plan(pg::delete_rows(source), "uuid[], uuid", ids + ", " + instance, settings),
                     {key});
      expect_indexed(plan(pg::complete_row(source), "uuid, uuid, integer, bigint",
                          "md5('m1')::uuid, " + instance + ", 1, 5", settings),
                     {key});
    }
    expect_indexed(
        plan(pg::kDeletePerspectiveWork, "uuid, uuid", "md5('w1')::uuid, " + instance, settings),
        {"wh_perspective_events_pkey"});
    expect_indexed(plan(pg::kPerspectiveWorkRemaining, "uuid", "md5('e1')::uuid", settings),
                   {"wh_perspective_events_event_id"});
    expect_indexed(plan(pg::kRenewLifecycleWork, "uuid, uuid, bigint",
                        "md5('e1')::uuid, " + instance + ", 5", settings),
                   {"wh_lifecycle_completions_pkey"});
    expect_indexed(
        plan(pg::kDeleteLifecycleWork, "uuid, uuid", "md5('e1')::uuid, " + instance, settings),
        {"wh_lifecycle_completions_pkey"});
    expect_indexed(
        plan(pg::kDeleteDetachedWork, "uuid, uuid", "md5('dw1')::uuid, " + instance, settings),
        {"wh_detached_work_pkey"});
  }
}

// Whether a receptor already fired for a message (exactly-once, every handling): its records by
// their key, never a walk of the age index in completed_at order past every record.
TEST_P(PostgresQueryPlanTests, InvocationLookup_FindsTheRecordsByKey) {
  for (const std::string mode : kLookupPlanModes) {
    SCOPED_TRACE(mode);
    const std::vector<std::string> lines =
        plan(pg::kFindInvocations, "uuid, text", "md5('r1')::uuid, 'shop::Mailer'",
             {plan_cache_mode(mode)});
    EXPECT_TRUE(any_line_has(lines, "wh_receptor_invocations_key")) << joined(lines);
    EXPECT_FALSE(any_line_has(lines, "Seq Scan")) << joined(lines);
    EXPECT_FALSE(any_line_has(lines, "wh_receptor_invocations_completed_at")) << joined(lines);
  }
}

// Read-your-writes (PerspectiveSync): where a token's events stand, by their ids. Ordered by
// perspective name, the pending check walked the lane index past every row (VacuumedWhileEmpty,
// VacuumedEmptyAndShrunk).
TEST_P(PostgresQueryPlanTests, ReadYourWritesChecks_FindTheEventsByKey) {
  const std::string ids = "'{' || md5('e1') || ',' || md5('e2') || '}'";
  for (const std::string mode : kLookupPlanModes) {
    SCOPED_TRACE(mode);
    const std::vector<std::string> settings = {plan_cache_mode(mode)};
    expect_indexed(plan(pg::kEventsStored, "text", ids, settings), {"wh_event_store_pkey"});
    expect_indexed(plan(pg::kEventsPendingPerspectives, "text", ids, settings),
                   {"wh_perspective_events_event_id"});
  }
}

INSTANTIATE_TEST_SUITE_P(Statistics, PostgresQueryPlanTests,
                         ::testing::Values(Statistics::Analyzed, Statistics::VacuumedWhileEmpty,
                                           Statistics::VacuumedEmptyAndShrunk,
                                           Statistics::AnalyzedWhileLeasedElsewhere),
                         statistics_name);

}  // namespace
}  // namespace store_test

namespace store_test {
namespace {

// A connection keeps the generic plan it made of a prepared statement until the table's
// statistics change. Made while a vacuumed outbox was a page or two long, the event appends'
// update by key read the whole table for every row once a burst had grown it (a million-message
// history: 40 ms per 100 appended events against 9). The store plans its own statements to walk
// an index (coordination_sql.hpp, kPlanByIndexes), so the plan it keeps uses the key.
TEST(PostgresCachedPlanTests, EventAppends_PlannedWhileTheOutboxWasEmpty_UseTheKeyOnceItGrows) {
  const std::string conninfo = whizbang_test::fresh_postgres_schema();
  ASSERT_FALSE(conninfo.empty());
  auto store = whizbang::PostgresWorkStore::open(conninfo, {});
  ASSERT_TRUE(store.ok()) << store.status();
  // A history of 20k rows, gone and vacuumed away: no pages, no rows, a key index left behind.
  for (const std::string& sql :
       {std::string("ALTER TABLE wh_outbox SET (autovacuum_enabled = false)"),
        std::string("INSERT INTO wh_outbox (message_id, message_type, event_data, created_at) "
                    "SELECT md5('h' || i)::uuid, 't', '{}', i FROM generate_series(1, 20000) i"),
        std::string("DELETE FROM wh_outbox"), std::string("VACUUM (TRUNCATE true) wh_outbox")}) {
    ASSERT_TRUE(whizbang_test::postgres_admin(conninfo, sql));
  }
  // Events appended while the table is that small: the update that marks each one stored runs
  // often enough for the connection to keep a generic plan of it.
  for (int batch = 0; batch < 3; ++batch) {
    whizbang::WorkBatchRequest append;
    for (int i = 0; i < 10; ++i) {
      whizbang::OutboxMessage row;
      row.message_id = whizbang::MessageId::mint();
      row.message_type = "shop::OrderCreated";
      row.envelope_json = R"({"v":1,"id":")" + row.message_id.to_string() +
                          R"(","p":{},"h":[{"si":{"sn":"orders"},"ts":1}]})";
      row.stream_id = whizbang::MessageId::mint().uuid();
      row.is_event = true;
      append.new_outbox.push_back(std::move(row));
    }
    append.claim_inbox = false;
    append.event_store_outbox_only = true;
    append.max_items = 10;
    auto claimed = (*store)->process_work_batch(append);
    ASSERT_TRUE(claimed.ok()) << claimed.status();
    ASSERT_EQ(claimed->size(), 10u);
  }
  // Then the burst: the table grows to hundreds of pages (handled rows, never claimed again).
  ASSERT_TRUE(whizbang_test::postgres_admin(
      conninfo,
      "INSERT INTO wh_outbox (message_id, message_type, event_data, created_at, processed_at) "
      "SELECT md5('b' || i)::uuid, 't', repeat('x', 200), i, i FROM generate_series(1, 20000) i"));

  // The plan the store's connection keeps for that update, as it would run it now.
  const std::string mark = pg::mark_event_stored(WorkSource::Outbox);
  std::vector<std::string> lines;
  long generic_plans = -1;
  whizbang::Transaction transaction(**store);
  ASSERT_TRUE(transaction.status().ok()) << transaction.status();
  const absl::Status read = transaction.sql().value()->with_native(
      [&](whizbang::NativeConnection native) -> absl::Status {
        const char* values[] = {mark.c_str()};
        std::unique_ptr<PGresult, decltype(&PQclear)> found(
            PQexecParams(native.postgres,
                         "SELECT name, generic_plans FROM pg_prepared_statements "
                         "WHERE statement = $1",
                         1, nullptr, values, nullptr, nullptr, 0),
            &PQclear);
        if (PQntuples(found.get()) != 1) return absl::NotFoundError("the update is not prepared");
        const std::string name = PQgetvalue(found.get(), 0, 0);
        generic_plans = std::atol(PQgetvalue(found.get(), 0, 1));
        PQclear(PQexec(native.postgres, "SET LOCAL plan_cache_mode = force_generic_plan"));
        std::unique_ptr<PGresult, decltype(&PQclear)> plan(
            PQexec(native.postgres, ("EXPLAIN EXECUTE " + name + "('" +
                                     whizbang::MessageId::mint().to_string() + "')")
                                        .c_str()),
            &PQclear);
        for (int row = 0; row < PQntuples(plan.get()); ++row)
          lines.emplace_back(PQgetvalue(plan.get(), row, 0));
        return absl::OkStatus();
      });
  ASSERT_TRUE(read.ok()) << read;
  EXPECT_GT(generic_plans, 0) << "the connection should have kept a generic plan";
  ASSERT_FALSE(lines.empty());
  EXPECT_FALSE(any_line_has(lines, "Seq Scan on wh_outbox")) << joined(lines);
  EXPECT_TRUE(any_line_has(lines, "wh_outbox_pkey")) << joined(lines);
}

}  // namespace
}  // namespace store_test
