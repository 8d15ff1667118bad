// A transport that keeps what its subscriber refuses, as RabbitMQ does in `{queue}.dlq`: tests
// hand a subscription a batch by hand and read the outcome (which messages it refused, and why).
//
//   whizbang_test::DeadLetteringTransport transport;
//   auto subscription = inbox.subscribe(transport);
//   whizbang::DeliveryOutcome outcome = transport.deliver(batch);
//   EXPECT_EQ(outcome.refused.size(), 1u);
#pragma once

#include <whizbang/transport/transport.hpp>

#include <memory>
#include <span>

namespace whizbang_test {

class DeadLetteringTransport final : public whizbang::Transport {
 public:
  absl::Status publish(const whizbang::TransportDestination&,
                       std::span<const whizbang::TransportMessage>) override {
    return absl::UnimplementedError("deliveries are handed over with deliver()");
  }
  absl::StatusOr<std::unique_ptr<whizbang::TransportSubscription>> subscribe(
      std::string_view, std::vector<whizbang::TransportBinding>, DeliveryHandler handler) override {
    handler_ = std::move(handler);
    return std::make_unique<whizbang::TransportSubscription>();
  }
  bool dead_letters_refused() const override { return true; }

  // Hands `batch` to the subscription, as a broker's delivery would.
  whizbang::DeliveryOutcome deliver(std::span<const whizbang::TransportMessage> batch) {
    return handler_({"events", "", {}}, batch);
  }

 private:
  DeliveryHandler handler_;
};

}  // namespace whizbang_test
