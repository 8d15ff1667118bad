#include "whizbang/message/envelope.hpp"

#include <algorithm>

namespace whizbang {

bool SecurityScope::has_role(std::string_view role) const {
  return std::find(roles.begin(), roles.end(), role) != roles.end();
}

bool SecurityScope::has_permission(std::string_view permission) const {
  return std::find(permissions.begin(), permissions.end(), permission) != permissions.end();
}

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

const MessageHop* Envelope::current_scope_hop() const {
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    if (it->type == HopType::Current && it->scope) return &*it;
  }
  return nullptr;
}

std::optional<SecurityScope> Envelope::current_scope() const {
  const MessageHop* hop = current_scope_hop();
  return hop != nullptr ? hop->scope : std::nullopt;
}

std::string_view Envelope::source_service_name() const {
  return hops.empty() ? std::string_view() : hops.back().service_instance.service_name;
}

}  // namespace whizbang
