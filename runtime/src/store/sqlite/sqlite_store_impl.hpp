// SqliteWorkStore::Impl: the SQLite core and one object per role over it, composed into the
// SqliteWorkStore (ComposedWorkStore forwards each WorkStore call to its role).
#pragma once

#include "sqlite/sqlite_coordination.hpp"
#include "sqlite/sqlite_core.hpp"
#include "sqlite/sqlite_dead_letters.hpp"
#include "sqlite/sqlite_event_store.hpp"
#include "sqlite/sqlite_inbox.hpp"
#include "sqlite/sqlite_operations.hpp"
#include "sqlite/sqlite_outbox.hpp"
#include "sqlite/sqlite_perspective_rebuild.hpp"
#include "sqlite/sqlite_perspective_sync.hpp"
#include "sqlite/sqlite_perspectives.hpp"
#include "sqlite/sqlite_stage_work.hpp"
#include "sqlite/sqlite_transactions.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang {

struct SqliteWorkStore::Impl final : SqliteCore {
  using SqliteCore::SqliteCore;

  WorkStoreRoles roles() {
    return {&transactions, &outbox,       &inbox,      &events,   &perspectives, &perspective_sync,
            &stage_work,   &coordination, &operations, &rebuilds, &dead_letters};
  }

  SqliteTransactions transactions{*this};
  SqliteOutbox outbox{*this};
  SqliteInbox inbox{*this};
  SqliteEventStore events{*this};
  SqlitePerspectives perspectives{*this};
  SqlitePerspectiveSync perspective_sync{*this};
  SqliteStageWork stage_work{*this};
  SqliteCoordination coordination{*this};
  SqliteOperations operations{*this};
  SqliteDeadLetters dead_letters{*this};
  SqlPerspectiveRebuild rebuilds{transactions, options, sqlite_rebuild_dialect()};
};

}  // namespace whizbang
