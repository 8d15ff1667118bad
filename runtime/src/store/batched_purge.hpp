// The retention purge in batches: each table's expired rows are removed by one statement that
// takes at most RetentionOptions::purge_batch_size of them, each in its own transaction, until a
// statement removes fewer. Between two batches the store is free: a worker waits for one batch
// at most, never for the whole purge (docs/guide/11-failures.md, "Retention"). Both SQL backends
// build their purge from this; their statements take ?1 cut-off, ?2 this instance (where used)
// and ?3 the batch size.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "store_support.hpp"
#include "whizbang/internal/status_macros.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang::store_internal {

// One table's purge: its batched statement, how old a row must be, and where its count goes.
struct PurgeStep {
  const std::string* sql;
  std::chrono::seconds age;
  std::int64_t PurgeCounts::* count;
};

// A backend's batched purge statements, one per table.
struct PurgeStatements {
  const std::string& deduplication;
  const std::string& tombstones;
  const std::string& invocations;
  const std::string& instances;
  const std::string& refused_deliveries;
  const std::string& dispatch_keys;
};

// The steps of a purge, one per table, in the order the purge runs them.
inline std::vector<PurgeStep> purge_steps(const PurgeStatements& sql,
                                          const RetentionOptions& retention) {
  return {
      {&sql.deduplication, retention.inbox_deduplication, &PurgeCounts::inbox_deduplication},
      {&sql.tombstones, retention.outbox_tombstones, &PurgeCounts::outbox_tombstones},
      {&sql.invocations, retention.receptor_invocations, &PurgeCounts::receptor_invocations},
      {&sql.instances, retention.service_instances, &PurgeCounts::service_instances},
      {&sql.refused_deliveries, retention.refused_deliveries, &PurgeCounts::refused_deliveries},
      {&sql.dispatch_keys, retention.dispatch_keys, &PurgeCounts::dispatch_keys},
  };
}

// Runs every table's purge in batches, then logs what it removed (EventId 143).
// `remove_batch(sql, cut_off_micros, batch_size)` runs one batched statement and answers how
// many rows it removed; `gate.run` gives each call its transaction.
template <class Gate, class RemoveBatch>
absl::StatusOr<PurgeCounts> purge_in_batches(Gate& gate, const PurgeStatements& statements,
                                             const StoreOptions& options,
                                             const RetentionOptions& retention,
                                             RemoveBatch remove_batch) {
  const std::int64_t now_micros = to_unix_micros(options.now());
  const auto batch =
      static_cast<std::int64_t>(std::max<std::size_t>(1, retention.purge_batch_size));
  PurgeCounts purged;
  for (const PurgeStep& step : purge_steps(statements, retention)) {
    const std::int64_t cut_off =
        now_micros - std::chrono::duration_cast<std::chrono::microseconds>(step.age).count();
    for (;;) {
      WB_ASSIGN_OR_RETURN(const std::int64_t removed,
                          gate.run([&]() -> absl::StatusOr<std::int64_t> {
                            return remove_batch(*step.sql, cut_off, batch);
                          }));
      ++purged.transactions;
      purged.*step.count += removed;
      if (removed < batch) break;
      gate.let_queued_callers_in();
    }
  }
  report_purged(options, purged);
  return purged;
}

}  // namespace whizbang::store_internal
