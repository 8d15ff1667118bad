#include "shop/orders_receptors.hpp"

namespace shop {

std::tuple<OrderResult, OrderCreated, SendInvoice> CreateOrderReceptor::handle(
    const CreateOrder& command) {
  OrderCreated created;
  created.order_id = command.order_id;
  created.customer_id = command.customer_id;
  created.amount = command.amount;
  SendInvoice invoice;
  invoice.order_id = command.order_id;
  invoice.amount = command.amount;
  return {OrderResult{command.order_id, true}, created, invoice};
}

std::tuple<InvoiceSent, whizbang::Routed<OrderAudited>> InvoiceReceptor::handle(
    const SendInvoice& command) {
  journal_.note("InvoiceReceptor");
  InvoiceSent sent;
  sent.order_id = command.order_id;
  sent.invoice_number = "INV-" + command.order_id;
  OrderAudited audit;
  audit.order_id = command.order_id;
  audit.action = "invoiced";
  return {sent, whizbang::Route::EventStoreOnly(audit)};
}

std::vector<whizbang::Routed<InventoryReserved>> ReserveStock::handle(const OrderCreated& event) {
  journal_.note("ReserveStock");
  // The order's lines are not on the event; the sample reserves a fixed pair of SKUs.
  std::vector<whizbang::Routed<InventoryReserved>> out;
  for (const char* sku : {"sku-kettle", "sku-filter"}) {
    InventoryReserved reserved;
    reserved.order_id = event.order_id;
    reserved.sku = sku;
    reserved.quantity = 1;
    out.push_back(whizbang::Route::Both(reserved));
  }
  return out;
}

void MarkCustomerNotified::handle(const CustomerNotified&) {
  journal_.note("MarkCustomerNotified");
}

}  // namespace shop
