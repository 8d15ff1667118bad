#include "shop/shared_receptors.hpp"

namespace shop {

void OrderConfirmationEmail::handle(const OrderCreated& event) {
  mailer_.send(event.customer_id, "Your order " + event.order_id + " is confirmed");
  journal_.note("OrderConfirmationEmail");
}

void OrderCounter::handle(const OrderCreated&) { journal_.note("OrderCounter"); }

void CustomerStatsUpdater::handle(const OrderCreated& event) {
  stats_.record(event.customer_id, event.order_id, event.amount);
  journal_.note("CustomerStatsUpdater");
}

}  // namespace shop
