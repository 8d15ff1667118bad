// InProcessTransport: a Transport for services that live in one process (tests, samples, a
// modular monolith). publish() hands the batch to every matching subscription's handler
// synchronously, so when it returns OK every subscriber has stored the batch in its inbox; a
// subscriber's inbox commit then wakes its worker, so delivery is not bound to a poll interval.
// A batch holding a command that no subscription is bound to fails with Unavailable, so the
// outbox keeps the row and retries it (a broker's durable queue would have held it); an event
// nobody subscribes to is dropped, as with any publish-subscribe.
//
// A handler that throws fails the publish (the outbox keeps the row) instead of unwinding into
// the publisher. Destroying a subscription waits until no publish is still calling its handler,
// so the handler's captures may be destroyed right after.
//
// For tests it keeps the last `history` published messages (published(), publish_count(id));
// published_count() counts every message ever published.
//
//   whizbang::InProcessTransport transport;
//   auto sub = transport.subscribe("inventory", {{"orders", ""}}, handler);
//   transport.publish({"orders", "shop.ordercreated"}, batch);   // handler ran
//   transport.published_count();                                   // for tests
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "whizbang/transport/transport.hpp"

namespace whizbang {

class InProcessTransport final : public Transport {
 public:
  static constexpr std::size_t kDefaultHistory = 4096;

  explicit InProcessTransport(std::size_t history = kDefaultHistory);
  ~InProcessTransport() override;

  absl::Status publish(const TransportDestination& destination,
                       std::span<const TransportMessage> batch) override;
  absl::StatusOr<std::unique_ptr<TransportSubscription>> subscribe(
      std::string_view service_name, std::vector<TransportBinding> bindings,
      DeliveryHandler handler) override;

  // The last `history` messages published, oldest first (tests count deliveries with it).
  struct Published {
    TransportDestination destination;
    TransportMessage message;
  };
  std::vector<Published> published() const;
  // Every message ever published, including those the history no longer holds.
  std::size_t published_count() const;
  // How many times `id` was published, within the history.
  std::size_t publish_count(const MessageId& id) const;

  // Fault injection for tests: publish() fails with `status` while it is not OK.
  void fail_publishes(absl::Status status);

 private:
  struct Subscriber {
    std::string service_name;
    std::vector<TransportBinding> bindings;
    DeliveryHandler handler;
    int in_flight = 0;  // publishes calling `handler` now (guarded by mutex_)
  };
  class Subscription;

  // Removes the subscriber and waits for its in-flight handler calls (other than the calling
  // thread's own, when a handler ends its own subscription).
  void unsubscribe(std::uint64_t id);
  absl::Status deliver(const std::shared_ptr<Subscriber>& subscriber,
                       const TransportDestination& destination,
                       std::span<const TransportMessage> batch);

  mutable std::mutex mutex_;
  std::condition_variable handler_returned_;
  std::map<std::uint64_t, std::shared_ptr<Subscriber>> subscribers_;
  std::uint64_t next_id_ = 0;
  std::size_t history_;
  std::deque<Published> published_;
  std::size_t published_total_ = 0;
  absl::Status fault_ = absl::OkStatus();
  // Subscriptions outliving the transport must not call back into it.
  std::shared_ptr<InProcessTransport*> self_;
};

}  // namespace whizbang
