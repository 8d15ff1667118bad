#include "whizbang/exactly_once/receptor_dedup_store.hpp"

#include "absl/strings/match.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang {

bool record_counts_for(const ReceptorInvocationRecord& record,
                       std::optional<std::string_view> service_name) {
  if (!service_name || service_name->empty() || record.service_name.empty()) return true;
  return absl::EqualsIgnoreCase(record.service_name, internal::absl_view(*service_name));
}

std::optional<ReceptorInvocationRecord> EnvelopeReceptorDedupStore::try_get_prior_invocation(
    const Envelope& envelope, std::string_view receptor_id,
    std::optional<std::string_view> service_name) const {
  for (const ReceptorInvocationRecord& record : envelope.receptor_invocations) {
    // Perspective-scoped records are keyed with their perspective: they never stop a
    // per-message invocation.
    if (record.receptor_id.view() == receptor_id && record.perspective.empty() &&
        record_counts_for(record, service_name)) {
      return record;
    }
  }
  return std::nullopt;
}

}  // namespace whizbang
