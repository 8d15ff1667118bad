#include "shop/notifications_receptors.hpp"

namespace shop {

whizbang::Routed<CustomerNotified> NotifyCustomer::handle(const InventoryReserved& event) {
  journal_.note("NotifyCustomer");
  CustomerNotified notified;
  notified.order_id = event.order_id;
  notified.customer_id = "customer-of-" + event.order_id;
  return whizbang::Route::Outbox(notified);
}

}  // namespace shop
