// The notifications service: tells customers what happened to their orders.
#pragma once

#include "shop/messages.hpp"
#include "shop/services.hpp"
#include "shop/shared_receptors.hpp"

namespace shop {

// Tells the customer about each reservation; the orders service hears of it (Route::Outbox).
class NotifyCustomer
    : public whizbang::Receptor<InventoryReserved, whizbang::Routed<CustomerNotified>> {
 public:
  explicit NotifyCustomer(ServiceJournal& journal) : journal_(journal) {}
  whizbang::Routed<CustomerNotified> handle(const InventoryReserved& event);

 private:
  ServiceJournal& journal_;
};

}  // namespace shop
