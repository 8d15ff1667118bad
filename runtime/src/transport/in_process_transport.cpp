#include "whizbang/transport/in_process_transport.hpp"

#include <algorithm>

namespace whizbang {

bool routing_key_matches(std::string_view pattern, std::string_view key) {
  if (pattern.empty()) return true;
  if (pattern.back() == '*') {
    pattern.remove_suffix(1);
    return key.substr(0, pattern.size()) == pattern;
  }
  return pattern == key;
}

class InProcessTransport::Subscription final : public TransportSubscription {
 public:
  Subscription(std::weak_ptr<InProcessTransport*> transport, std::uint64_t id)
      : transport_(std::move(transport)), id_(id) {}
  ~Subscription() override {
    if (std::shared_ptr<InProcessTransport*> transport = transport_.lock()) {
      (*transport)->unsubscribe(id_);
    }
  }

 private:
  std::weak_ptr<InProcessTransport*> transport_;
  std::uint64_t id_;
};

InProcessTransport::InProcessTransport() : self_(std::make_shared<InProcessTransport*>(this)) {}
InProcessTransport::~InProcessTransport() = default;

absl::Status InProcessTransport::publish(const TransportDestination& destination,
                                         std::span<const TransportMessage> batch) {
  std::vector<DeliveryHandler> handlers;
  {
    std::lock_guard lock(mutex_);
    if (!fault_.ok()) return fault_;
    for (const auto& [id, subscriber] : subscribers_) {
      const bool bound = std::any_of(
          subscriber.bindings.begin(), subscriber.bindings.end(), [&](const TransportBinding& b) {
            return b.address == destination.address &&
                   routing_key_matches(b.routing_key, destination.routing_key);
          });
      if (bound) handlers.push_back(subscriber.handler);
    }
    // A command needs a consumer. With none bound (its service not started yet, or stopped)
    // the publish fails, so the outbox keeps the row and retries it, where a broker's durable
    // queue would have held it. An event nobody subscribes to is dropped: nobody is interested.
    const bool has_command = std::any_of(batch.begin(), batch.end(),
                                         [](const TransportMessage& m) { return !m.is_event; });
    if (handlers.empty() && has_command) {
      return absl::UnavailableError("no subscription is bound to '" + destination.address +
                                    "' with routing key '" + destination.routing_key +
                                    "': the command stays in the outbox");
    }
    for (const TransportMessage& message : batch) published_.push_back({destination, message});
  }
  // Outside the lock: a handler may publish (a service answering in the same thread).
  for (const DeliveryHandler& handler : handlers) {
    if (absl::Status status = handler(destination, batch); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<TransportSubscription>> InProcessTransport::subscribe(
    std::string_view service_name, std::vector<TransportBinding> bindings,
    DeliveryHandler handler) {
  if (!handler) return absl::InvalidArgumentError("subscribe: handler is empty");
  std::lock_guard lock(mutex_);
  const std::uint64_t id = ++next_id_;
  subscribers_.emplace(
      id, Subscriber{std::string(service_name), std::move(bindings), std::move(handler)});
  return std::unique_ptr<TransportSubscription>(new Subscription(self_, id));
}

void InProcessTransport::unsubscribe(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  subscribers_.erase(id);
}

std::vector<InProcessTransport::Published> InProcessTransport::published() const {
  std::lock_guard lock(mutex_);
  return published_;
}

std::size_t InProcessTransport::published_count() const {
  std::lock_guard lock(mutex_);
  return published_.size();
}

std::size_t InProcessTransport::publish_count(const MessageId& id) const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(
      std::count_if(published_.begin(), published_.end(),
                    [&](const Published& p) { return p.message.message_id == id; }));
}

void InProcessTransport::fail_publishes(absl::Status status) {
  std::lock_guard lock(mutex_);
  fault_ = std::move(status);
}

}  // namespace whizbang
