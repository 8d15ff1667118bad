// StoreOperations: the operations role of the durable store — what an operator does to it: list
// and requeue dead letters, purge old duplicate-guarding bookkeeping. The host's retention timer
// and the admin tools call it through WorkStore (work_store.hpp).
//
//   auto letters = store.dead_letters(100);                  // oldest dead letter first
//   auto requeued = store.requeue_dead_letters({});          // every dead letter, due now
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang {

class StoreOperations {
 public:
  virtual ~StoreOperations() = default;

  // Dead-lettered rows of every kind, oldest dead letter first, at most `limit`.
  virtual absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) = 0;
  // Gives the dead letters with these ids (DeadLetter::id; empty: every dead letter) a fresh set
  // of attempts: due now, error kept for the record. Returns how many rows were requeued.
  virtual absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) = 0;
  // Deletes duplicate-guarding bookkeeping older than `retention` (see RetentionOptions).
  virtual absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) = 0;
};

}  // namespace whizbang
