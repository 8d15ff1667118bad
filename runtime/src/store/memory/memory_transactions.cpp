// MemoryTransactions: the transaction role (begin/commit, savepoints, the user's SQL, commit
// listeners) on memory.
#include "memory/memory_transactions.hpp"

#include <algorithm>
#include <cctype>

#include "memory/memory_core.hpp"

namespace whizbang {

absl::Status MemoryTransactions::begin() { return core_.gate.begin(); }

absl::Status MemoryTransactions::commit() { return core_.gate.commit(); }

absl::Status MemoryTransactions::rollback() { return core_.gate.rollback(); }

bool MemoryTransactions::in_transaction() const { return core_.gate.in_transaction(); }

absl::Status MemoryTransactions::savepoint() { return core_.gate.savepoint(); }

absl::Status MemoryTransactions::release_savepoint() {
  return core_.gate.end_savepoint(/*keep=*/true);
}

absl::Status MemoryTransactions::rollback_to_savepoint() {
  return core_.gate.end_savepoint(/*keep=*/false);
}

int MemoryTransactions::add_commit_listener(CommitListener listener) {
  return core_.gate.add_listener(std::move(listener));
}

void MemoryTransactions::remove_commit_listener(int id) { core_.gate.remove_listener(id); }

}  // namespace whizbang
