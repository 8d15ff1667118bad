// SqliteWorkStore::Impl: the SQLite core and one object per role over it, composed into the
// SqliteWorkStore (ComposedWorkStore forwards each WorkStore call to its role).
#pragma once

#include "store/sqlite/sqlite_coordination.hpp"
#include "store/sqlite/sqlite_core.hpp"
#include "store/sqlite/sqlite_event_store.hpp"
#include "store/sqlite/sqlite_inbox.hpp"
#include "store/sqlite/sqlite_operations.hpp"
#include "store/sqlite/sqlite_outbox.hpp"
#include "store/sqlite/sqlite_perspectives.hpp"
#include "store/sqlite/sqlite_stage_work.hpp"
#include "store/sqlite/sqlite_transactions.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang {

struct SqliteWorkStore::Impl final : SqliteCore {
  using SqliteCore::SqliteCore;

  WorkStoreRoles roles() {
    return {&transactions, &outbox,     &inbox,        &events,
            &perspectives, &stage_work, &coordination, &operations};
  }

  SqliteTransactions transactions{*this};
  SqliteOutbox outbox{*this};
  SqliteInbox inbox{*this};
  SqliteEventStore events{*this};
  SqlitePerspectives perspectives{*this};
  SqliteStageWork stage_work{*this};
  SqliteCoordination coordination{*this};
  SqliteOperations operations{*this};
};

}  // namespace whizbang
