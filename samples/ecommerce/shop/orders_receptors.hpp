// The orders service: takes orders, invoices them and reserves stock.
#pragma once

#include <tuple>
#include <vector>

#include "shop/messages.hpp"
#include "shop/order_summary.hpp"
#include "shop/services.hpp"
#include "shop/shared_receptors.hpp"

namespace shop {

// Returns the caller's result together with the messages that follow from it: the event and
// the invoice command cascade automatically.
class CreateOrderReceptor
    : public whizbang::Receptor<CreateOrder, std::tuple<OrderResult, OrderCreated, SendInvoice>> {
 public:
  std::tuple<OrderResult, OrderCreated, SendInvoice> handle(const CreateOrder& command);
};

class InvoiceReceptor
    : public whizbang::Receptor<SendInvoice,
                                std::tuple<InvoiceSent, whizbang::Routed<OrderAudited>>> {
 public:
  explicit InvoiceReceptor(ServiceJournal& journal) : journal_(journal) {}
  std::tuple<InvoiceSent, whizbang::Routed<OrderAudited>> handle(const SendInvoice& command);

 private:
  ServiceJournal& journal_;
};

// One reservation per order line, for this service and for the others (Route::Both).
class ReserveStock
    : public whizbang::Receptor<OrderCreated, std::vector<whizbang::Routed<InventoryReserved>>> {
 public:
  explicit ReserveStock(ServiceJournal& journal) : journal_(journal) {}
  std::vector<whizbang::Routed<InventoryReserved>> handle(const OrderCreated& event);

 private:
  ServiceJournal& journal_;
};

class MarkCustomerNotified : public whizbang::Receptor<CustomerNotified> {
 public:
  explicit MarkCustomerNotified(ServiceJournal& journal) : journal_(journal) {}
  void handle(const CustomerNotified& event);

 private:
  ServiceJournal& journal_;
};

}  // namespace shop
