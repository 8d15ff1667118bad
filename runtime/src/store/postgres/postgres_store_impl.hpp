// PostgresWorkStore::Impl: the PostgreSQL core and one object per role over it, composed into the
// PostgresWorkStore (ComposedWorkStore forwards each WorkStore call to its role).
#pragma once

#include "postgres/postgres_coordination.hpp"
#include "postgres/postgres_core.hpp"
#include "postgres/postgres_dead_letters.hpp"
#include "postgres/postgres_event_store.hpp"
#include "postgres/postgres_inbox.hpp"
#include "postgres/postgres_operations.hpp"
#include "postgres/postgres_outbox.hpp"
#include "postgres/postgres_perspective_rebuild.hpp"
#include "postgres/postgres_perspective_sync.hpp"
#include "postgres/postgres_perspectives.hpp"
#include "postgres/postgres_stage_work.hpp"
#include "postgres/postgres_transactions.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace whizbang {

struct PostgresWorkStore::Impl final : PostgresCore {
  using PostgresCore::PostgresCore;

  WorkStoreRoles roles() {
    return {&transactions, &outbox,       &inbox,      &events,   &perspectives, &perspective_sync,
            &stage_work,   &coordination, &operations, &rebuilds, &dead_letters};
  }

  PostgresTransactions transactions{*this};
  PostgresOutbox outbox{*this};
  PostgresInbox inbox{*this};
  PostgresEventStore events{*this};
  PostgresPerspectives perspectives{*this};
  PostgresPerspectiveSync perspective_sync{*this};
  PostgresStageWork stage_work{*this};
  PostgresCoordination coordination{*this};
  PostgresOperations operations{*this};
  PostgresDeadLetters dead_letters{*this};
  SqlPerspectiveRebuild rebuilds{transactions, options, postgres_rebuild_dialect()};
};

}  // namespace whizbang
