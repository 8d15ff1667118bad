// DatabaseReceptorDedupStore: the dedup store for PersistInvocations = Database.
//
// Answers from the envelope's records first (free), then from wh_receptor_invocations, so a
// record survives even where an envelope copy without it is redelivered. Writes go through the
// WorkStore on the calling thread, so inside an inbox handling they commit in the same
// transaction as the handling's outbox rows and its inbox completion.
#pragma once

#include "whizbang/exactly_once/receptor_dedup_store.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

class DatabaseReceptorDedupStore final : public ReceptorDedupStore {
 public:
  explicit DatabaseReceptorDedupStore(WorkStore& store) : store_(store) {}

  std::optional<ReceptorInvocationRecord> try_get_prior_invocation(
      const Envelope& envelope, std::string_view receptor_id,
      std::optional<std::string_view> service_name) const override;
  absl::Status record_invocation(const Envelope& envelope,
                                 const ReceptorInvocationRecord& record) override;

 private:
  WorkStore& store_;
  EnvelopeReceptorDedupStore envelope_store_;
};

}  // namespace whizbang
