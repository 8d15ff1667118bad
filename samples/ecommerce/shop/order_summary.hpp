// A read model of each order, kept by the orders service from the events it stores.
#pragma once

#include <string>

#include "shop/messages.hpp"

namespace shop {

struct OrderSummary {
  std::string order_id;
  std::string customer_id;
  double amount = 0;
  int items_reserved = 0;
  std::string invoice_number;
  int customer_notifications = 0;
};

class OrderSummaryPerspective : public whizbang::Perspective<OrderSummary> {
 public:
  void apply(OrderSummary& summary, const OrderCreated& event);
  void apply(OrderSummary& summary, const InventoryReserved& event);
  void apply(OrderSummary& summary, const InvoiceSent& event);
  void apply(OrderSummary& summary, const CustomerNotified& event);
};

}  // namespace shop
