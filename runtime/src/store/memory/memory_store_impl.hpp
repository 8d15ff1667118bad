// MemoryWorkStore::Impl: the memory core and one object per role over it, composed into the
// MemoryWorkStore (ComposedWorkStore forwards each WorkStore call to its role).
#pragma once

#include "store/memory/memory_coordination.hpp"
#include "store/memory/memory_core.hpp"
#include "store/memory/memory_event_store.hpp"
#include "store/memory/memory_inbox.hpp"
#include "store/memory/memory_operations.hpp"
#include "store/memory/memory_outbox.hpp"
#include "store/memory/memory_perspectives.hpp"
#include "store/memory/memory_stage_work.hpp"
#include "store/memory/memory_transactions.hpp"
#include "whizbang/store/memory_work_store.hpp"

namespace whizbang {

struct MemoryWorkStore::Impl final : MemoryCore {
  using MemoryCore::MemoryCore;

  WorkStoreRoles roles() {
    return {&transactions, &outbox,     &inbox,        &events,
            &perspectives, &stage_work, &coordination, &operations};
  }

  MemoryTransactions transactions{*this};
  MemoryOutbox outbox{*this};
  MemoryInbox inbox{*this};
  MemoryEventStore events{*this};
  MemoryPerspectives perspectives{*this};
  MemoryStageWork stage_work{*this};
  MemoryCoordination coordination{*this};
  MemoryOperations operations{*this};
};

}  // namespace whizbang
