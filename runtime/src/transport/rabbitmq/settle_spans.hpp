// The `settle` spans of a RabbitMQ subscription (docs/guide/18-tracing.md): one per delivery
// the subscriber traced (DeliveryOutcome::settle_parents), a child of its receive span, timing
// the ack, nack (requeued) or reject (dead-lettered) that settles it on the broker.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "whizbang/observability/tracer.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang::rabbitmq {

class SettleSpans {
 public:
  // Starts the spans of `batch` (delivered to `destination`): each one's operation is a reject
  // where `refused[i]`, else a nack when `requeued`, else an ack. Inert when the outcome carries
  // no tracer.
  SettleSpans(const DeliveryOutcome& outcome, std::span<const TransportMessage> batch,
              const TransportDestination& destination, const std::vector<bool>& refused,
              bool requeued);
  SettleSpans(const SettleSpans&) = delete;
  SettleSpans& operator=(const SettleSpans&) = delete;
  // Ends them; a failed ack/nack marks them failed.
  void end(const absl::Status& settled);
  ~SettleSpans() { end(absl::OkStatus()); }

 private:
  std::vector<Span> spans_;
};

}  // namespace whizbang::rabbitmq
