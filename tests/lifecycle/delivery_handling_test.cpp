// Where a host handles what its transport delivers (docs/guide/06-stores-and-workers.md,
// "Handling on delivery"): on the delivering thread, in the transaction that stores it, when the
// transport delivers on threads of its own and the store's writers take turns; otherwise on the
// inbox worker's next cycle.
#include <optional>

#include "host_fixture.hpp"
#include "support/forwarding_transport.hpp"

namespace lifecycle_test {
namespace {

// The in-process transport, presented as one that delivers on threads of its own (as a broker
// connection's). The tests step the workers, so deliveries still come on the publisher's thread.
class OwnThreadsTransport final : public test_support::ForwardingTransport {
 public:
  OwnThreadsTransport() : ForwardingTransport(inner_) {}
  bool delivers_on_own_threads() const override { return true; }

 private:
  whizbang::InProcessTransport inner_;
};

std::function<void(whizbang::HostOptions&)> handle_on_delivery(std::optional<bool> value) {
  return [value](whizbang::HostOptions& options) { options.inbox_handle_on_delivery = value; };
}

class DeliveryHandlingTests : public ::testing::Test {
 protected:
  // Publishes an order in "orders" and runs only its drain worker (one cycle): what
  // "notifications" fired by then, it fired while receiving the delivery.
  int fired_on_delivery(whizbang::Transport& transport, std::optional<bool> setting) {
    Service orders(log_, transport, "orders");
    Service notifications(log_, transport, "notifications", {}, nullptr,
                          handle_on_delivery(setting));
    EXPECT_TRUE(orders.host->dispatcher().publish(placed("o-1")).ok());
    EXPECT_TRUE(orders.host->run_once().ok());
    const int fired = log_.count("SharedProjection", "notifications");
    settle(orders, notifications);
    EXPECT_EQ(log_.count("SharedProjection", "notifications"), 1) << "once, either way";
    return fired;
  }

  FireLog log_;
};

TEST_F(DeliveryHandlingTests, OwnThreadsTransportAndATurnTakingStore_HandledOnDelivery) {
  OwnThreadsTransport transport;
  EXPECT_EQ(fired_on_delivery(transport, std::nullopt), 1);
}

TEST_F(DeliveryHandlingTests, TransportDeliveringInsideItsPublish_HandledByTheWorker) {
  whizbang::InProcessTransport transport;
  EXPECT_EQ(fired_on_delivery(transport, std::nullopt), 0);
}

TEST_F(DeliveryHandlingTests, TurnedOff_HandledByTheWorker) {
  OwnThreadsTransport transport;
  EXPECT_EQ(fired_on_delivery(transport, false), 0);
}

TEST_F(DeliveryHandlingTests, TurnedOn_HandledOnDeliveryWhateverTheTransport) {
  whizbang::InProcessTransport transport;
  EXPECT_EQ(fired_on_delivery(transport, true), 1);
}

}  // namespace
}  // namespace lifecycle_test
