// MemoryWorkStore::Impl: the memory core and one object per role over it, composed into the
// MemoryWorkStore (ComposedWorkStore forwards each WorkStore call to its role).
#pragma once

#include "memory/memory_coordination.hpp"
#include "memory/memory_core.hpp"
#include "memory/memory_dead_letters.hpp"
#include "memory/memory_event_store.hpp"
#include "memory/memory_inbox.hpp"
#include "memory/memory_operations.hpp"
#include "memory/memory_outbox.hpp"
#include "memory/memory_perspective_rebuild.hpp"
#include "memory/memory_perspective_sync.hpp"
#include "memory/memory_perspectives.hpp"
#include "memory/memory_stage_work.hpp"
#include "memory/memory_transactions.hpp"
#include "whizbang/store/memory_work_store.hpp"

namespace whizbang {

struct MemoryWorkStore::Impl final : MemoryCore {
  using MemoryCore::MemoryCore;

  WorkStoreRoles roles() {
    return {&transactions, &outbox,       &inbox,      &events,   &perspectives, &perspective_sync,
            &stage_work,   &coordination, &operations, &rebuilds, &dead_letters};
  }

  MemoryTransactions transactions{*this};
  MemoryOutbox outbox{*this};
  MemoryInbox inbox{*this};
  MemoryEventStore events{*this};
  MemoryPerspectives perspectives{*this};
  MemoryPerspectiveSync perspective_sync{*this};
  MemoryStageWork stage_work{*this};
  MemoryCoordination coordination{*this};
  MemoryOperations operations{*this};
  MemoryDeadLetters dead_letters{*this};
  MemoryPerspectiveRebuild rebuilds{*this};
};

}  // namespace whizbang
