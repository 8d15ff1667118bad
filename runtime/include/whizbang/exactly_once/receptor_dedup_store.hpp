// ReceptorDedupStore: "has this receptor already fired for this message?" — the question the
// exactly-once guardrail asks before every invocation.
//
// Two questions, one method: with a service name, "did it fire *in this service*" (an ordinary
// receptor: a record stops it only in the service that wrote it); with std::nullopt, "did it fire
// anywhere" (a once_across_services receptor). Service names compare without regard to case, and
// a record that names no service stops the receptor everywhere.
//
// The default, EnvelopeReceptorDedupStore, reads the records the message carries. Replace it
// (HostOptions / ReceptorInvoker options) before the host is built, e.g. with a store that reads
// wh_receptor_invocations for stronger cross-process guarantees.
#pragma once

#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "whizbang/message/envelope.hpp"

namespace whizbang {

class ReceptorDedupStore {
 public:
  virtual ~ReceptorDedupStore() = default;

  virtual std::optional<ReceptorInvocationRecord> try_get_prior_invocation(
      const Envelope& envelope, std::string_view receptor_id,
      std::optional<std::string_view> service_name) const = 0;

  // Called after a successful invocation, once the record is on the envelope. The envelope store
  // has nothing more to do; a database-backed store writes its row here.
  virtual absl::Status record_invocation(const Envelope& envelope,
                                         const ReceptorInvocationRecord& record) {
    (void)envelope;
    (void)record;
    return absl::OkStatus();
  }
};

// True when `record` answers the question for `service_name` (see the header comment).
bool record_counts_for(const ReceptorInvocationRecord& record,
                       std::optional<std::string_view> service_name);

class EnvelopeReceptorDedupStore final : public ReceptorDedupStore {
 public:
  std::optional<ReceptorInvocationRecord> try_get_prior_invocation(
      const Envelope& envelope, std::string_view receptor_id,
      std::optional<std::string_view> service_name) const override;
};

}  // namespace whizbang
