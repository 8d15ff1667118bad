#include "whizbang/exactly_once/database_receptor_dedup_store.hpp"

namespace whizbang {

std::optional<ReceptorInvocationRecord> DatabaseReceptorDedupStore::try_get_prior_invocation(
    const Envelope& envelope, std::string_view receptor_id,
    std::optional<std::string_view> service_name) const {
  if (auto prior = envelope_store_.try_get_prior_invocation(envelope, receptor_id, service_name)) {
    return prior;
  }
  absl::StatusOr<std::vector<ReceptorInvocationRecord>> stored =
      store_.find_receptor_invocations(envelope.message_id, receptor_id);
  // An unreadable store must not let a receptor fire twice silently, nor stop it forever:
  // fall back to the envelope's answer (none) and let the store error surface on write.
  if (!stored.ok()) return std::nullopt;
  for (const ReceptorInvocationRecord& record : *stored) {
    if (record.perspective.empty() && record_counts_for(record, service_name)) return record;
  }
  return std::nullopt;
}

absl::Status DatabaseReceptorDedupStore::record_invocation(const Envelope& envelope,
                                                           const ReceptorInvocationRecord& record) {
  return store_.record_receptor_invocations(envelope.message_id, {&record, 1});
}

}  // namespace whizbang
