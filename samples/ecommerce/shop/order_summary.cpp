#include "shop/order_summary.hpp"

namespace shop {

void OrderSummaryPerspective::apply(OrderSummary& summary, const OrderCreated& event) {
  summary.order_id = event.order_id;
  summary.customer_id = event.customer_id;
  summary.amount = event.amount;
}

void OrderSummaryPerspective::apply(OrderSummary& summary, const InventoryReserved& event) {
  summary.items_reserved += event.quantity;
}

void OrderSummaryPerspective::apply(OrderSummary& summary, const InvoiceSent& event) {
  summary.invoice_number = event.invoice_number;
}

void OrderSummaryPerspective::apply(OrderSummary& summary, const CustomerNotified&) {
  ++summary.customer_notifications;
}

}  // namespace shop
