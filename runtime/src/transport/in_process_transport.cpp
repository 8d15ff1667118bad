#include "whizbang/transport/in_process_transport.hpp"

#include <algorithm>

#include "whizbang/retry/failure.hpp"

namespace whizbang {
namespace {

// The subscribers whose handler this thread is inside right now (a handler may publish, and may
// end its own subscription).
thread_local std::vector<const void*> t_calling;

int own_calls(const void* subscriber) {
  return static_cast<int>(std::count(t_calling.begin(), t_calling.end(), subscriber));
}

}  // namespace

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

InProcessTransport::InProcessTransport(std::size_t history)
    : history_(history), self_(std::make_shared<InProcessTransport*>(this)) {}
InProcessTransport::~InProcessTransport() = default;

absl::Status InProcessTransport::publish(const TransportDestination& destination,
                                         std::span<const TransportMessage> batch) {
  std::vector<std::shared_ptr<Subscriber>> bound;
  {
    std::lock_guard lock(mutex_);
    if (!fault_.ok()) return fault_;
    for (const auto& [id, subscriber] : subscribers_) {
      const bool matches = std::any_of(
          subscriber->bindings.begin(), subscriber->bindings.end(), [&](const TransportBinding& b) {
            return b.address == destination.address &&
                   routing_key_matches(b.routing_key, destination.routing_key);
          });
      if (matches) bound.push_back(subscriber);
    }
    // A command needs a consumer. With none bound (its service not started yet, or stopped)
    // the publish fails, so the outbox keeps the row and retries it, where a broker's durable
    // queue would have held it. An event nobody subscribes to is dropped: nobody is interested.
    const bool has_command = std::any_of(batch.begin(), batch.end(),
                                         [](const TransportMessage& m) { return !m.is_event; });
    if (bound.empty() && has_command) {
      return absl::UnavailableError("no subscription is bound to '" + destination.address +
                                    "' with routing key '" + destination.routing_key +
                                    "': the command stays in the outbox");
    }
    for (const TransportMessage& message : batch) {
      ++published_total_;
      if (history_ == 0) continue;
      if (published_.size() == history_) published_.pop_front();
      published_.push_back({destination, message});
    }
    for (const std::shared_ptr<Subscriber>& subscriber : bound) ++subscriber->in_flight;
  }
  // Outside the lock: a handler may publish (a service answering in the same thread). Every
  // bound subscriber is released, also those after a failed one, which are not called.
  absl::Status result = absl::OkStatus();
  for (const std::shared_ptr<Subscriber>& subscriber : bound) {
    if (result.ok()) result = deliver(subscriber, destination, batch);
    std::lock_guard lock(mutex_);
    if (--subscriber->in_flight == 0) handler_returned_.notify_all();
  }
  return result;
}

absl::Status InProcessTransport::deliver(const std::shared_ptr<Subscriber>& subscriber,
                                         const TransportDestination& destination,
                                         std::span<const TransportMessage> batch) {
  t_calling.push_back(subscriber.get());
  DeliveryOutcome outcome =
      outcome_of_call("delivery to service '" + subscriber->service_name + "'",
                      [&] { return subscriber->handler(destination, batch); });
  t_calling.pop_back();
  // No dead letters here (dead_letters_refused() is false): the inbox keeps what it refuses in
  // its own store instead, so a refusal counts as taken.
  return outcome.status;
}

absl::StatusOr<std::unique_ptr<TransportSubscription>> InProcessTransport::subscribe(
    std::string_view service_name, std::vector<TransportBinding> bindings,
    DeliveryHandler handler) {
  if (!handler) return absl::InvalidArgumentError("subscribe: handler is empty");
  std::lock_guard lock(mutex_);
  const std::uint64_t id = ++next_id_;
  subscribers_.emplace(
      id, std::make_shared<Subscriber>(
              Subscriber{std::string(service_name), std::move(bindings), std::move(handler)}));
  return std::unique_ptr<TransportSubscription>(new Subscription(self_, id));
}

void InProcessTransport::unsubscribe(std::uint64_t id) {
  std::unique_lock lock(mutex_);
  auto it = subscribers_.find(id);
  if (it == subscribers_.end()) return;
  std::shared_ptr<Subscriber> subscriber = std::move(it->second);
  subscribers_.erase(it);
  const int mine = own_calls(subscriber.get());
  handler_returned_.wait(lock, [&] { return subscriber->in_flight == mine; });
}

std::vector<InProcessTransport::Published> InProcessTransport::published() const {
  std::lock_guard lock(mutex_);
  return {published_.begin(), published_.end()};
}

std::size_t InProcessTransport::published_count() const {
  std::lock_guard lock(mutex_);
  return published_total_;
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
