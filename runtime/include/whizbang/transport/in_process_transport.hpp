// InProcessTransport: a Transport for services that live in one process (tests, samples, a
// modular monolith). publish() hands the batch to every matching subscription's handler
// synchronously, so when it returns OK every subscriber has stored the batch in its inbox; a
// subscriber's inbox commit then wakes its worker, so delivery is not bound to a poll interval.
// A batch holding a command that no subscription is bound to fails with Unavailable, so the
// outbox keeps the row and retries it (a broker's durable queue would have held it); an event
// nobody subscribes to is dropped, as with any publish-subscribe.
//
//   whizbang::InProcessTransport transport;
//   auto sub = transport.subscribe("inventory", {{"orders", ""}}, handler);
//   transport.publish({"orders", "shop.ordercreated"}, batch);   // handler ran
//   transport.published_count();                                   // for tests
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "whizbang/transport/transport.hpp"

namespace whizbang {

class InProcessTransport final : public Transport {
 public:
  InProcessTransport();
  ~InProcessTransport() override;

  absl::Status publish(const TransportDestination& destination,
                       std::span<const TransportMessage> batch) override;
  absl::StatusOr<std::unique_ptr<TransportSubscription>> subscribe(
      std::string_view service_name, std::vector<TransportBinding> bindings,
      DeliveryHandler handler) override;

  // Everything published so far, in order (tests count deliveries with it).
  struct Published {
    TransportDestination destination;
    TransportMessage message;
  };
  std::vector<Published> published() const;
  std::size_t published_count() const;
  // How many times `id` was published.
  std::size_t publish_count(const MessageId& id) const;

  // Fault injection for tests: publish() fails with `status` while it is not OK.
  void fail_publishes(absl::Status status);

 private:
  struct Subscriber {
    std::string service_name;
    std::vector<TransportBinding> bindings;
    DeliveryHandler handler;
  };
  class Subscription;

  void unsubscribe(std::uint64_t id);

  mutable std::mutex mutex_;
  std::map<std::uint64_t, Subscriber> subscribers_;
  std::uint64_t next_id_ = 0;
  std::vector<Published> published_;
  absl::Status fault_ = absl::OkStatus();
  // Subscriptions outliving the transport must not call back into it.
  std::shared_ptr<InProcessTransport*> self_;
};

}  // namespace whizbang
