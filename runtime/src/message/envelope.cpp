#include "whizbang/message/envelope.hpp"

namespace whizbang {

Envelope Envelope::create(AnyMessage payload, const ServiceInstance& self) {
  Envelope envelope;
  envelope.message_id = MessageId::mint();
  envelope.payload = std::move(payload);
  MessageHop hop;
  hop.service_instance = self;
  hop.timestamp = Clock::now();
  envelope.hops.push_back(std::move(hop));
  return envelope;
}

std::optional<MessageId> Envelope::correlation_id() const {
  return hops.empty() ? std::nullopt : hops.front().correlation_id;
}

std::optional<MessageId> Envelope::causation_id() const {
  return hops.empty() ? std::nullopt : hops.front().causation_id;
}

std::optional<TimePoint> Envelope::timestamp() const {
  if (hops.empty()) return std::nullopt;
  return hops.front().timestamp;
}

std::optional<Uuid> Envelope::stream_id() const {
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    if (it->type == HopType::Current && it->stream_id) return it->stream_id;
  }
  return std::nullopt;
}

std::string_view Envelope::topic() const {
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    if (it->type == HopType::Current && !it->topic.empty()) return it->topic;
  }
  return {};
}

std::optional<SecurityScope> Envelope::current_scope() const {
  std::optional<SecurityScope> folded;
  for (const MessageHop& hop : hops) {
    if (hop.type != HopType::Current || !hop.scope) continue;
    if (!folded) folded.emplace();
    if (!hop.scope->user_id.empty()) folded->user_id = hop.scope->user_id;
    if (!hop.scope->tenant_id.empty()) folded->tenant_id = hop.scope->tenant_id;
  }
  return folded;
}

std::string_view Envelope::source_service_name() const {
  return hops.empty() ? std::string_view() : hops.back().service_instance.service_name;
}

}  // namespace whizbang
