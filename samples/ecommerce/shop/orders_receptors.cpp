#include "shop/orders_receptors.hpp"

#include "whizbang/store/sql_session.hpp"

namespace shop {

namespace {

// The handling's SQL session: its writes commit with the handling or not at all. Receptors fail
// by throwing; StatusOr::value() throws the status, code and all.
whizbang::SqlSession& orders_table() { return *whizbang::SqlSession::current().value(); }

}  // namespace

std::tuple<OrderResult, OrderCreated, SendInvoice> CreateOrderReceptor::handle(
    const CreateOrder& command) {
  orders_table()
      .execute("INSERT INTO shop_orders (id, customer_id, amount) VALUES ($1, $2, $3)",
               {command.order_id, command.customer_id, command.amount})
      .value();
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
  orders_table()
      .execute("UPDATE shop_orders SET invoice_number = $1 WHERE id = $2",
               {sent.invoice_number, command.order_id})
      .value();
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

void MarkCustomerNotified::handle(const CustomerNotified& event) {
  orders_table()
      .execute("UPDATE shop_orders SET notifications = notifications + 1 WHERE id = $1",
               {event.order_id})
      .value();
  journal_.note("MarkCustomerNotified");
}

}  // namespace shop
