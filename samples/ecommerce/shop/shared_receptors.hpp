// Receptors both services register: the same class, compiled into each service's registry.
#pragma once

#include "shop/messages.hpp"
#include "shop/services.hpp"

namespace shop {

// Sends one confirmation e-mail per order, whichever services see the order: a record from any
// service stops it.
class [[whizbang::once_across_services]] OrderConfirmationEmail
    : public whizbang::Receptor<OrderCreated> {
 public:
  OrderConfirmationEmail(Mailer& mailer, ServiceJournal& journal)
      : mailer_(mailer), journal_(journal) {}
  void handle(const OrderCreated& event);

 private:
  Mailer& mailer_;
  ServiceJournal& journal_;
};

// Counts orders in each service's own store: runs once per service.
class OrderCounter : public whizbang::Receptor<OrderCreated> {
 public:
  explicit OrderCounter(ServiceJournal& journal) : journal_(journal) {}
  void handle(const OrderCreated& event);

 private:
  ServiceJournal& journal_;
};

// Maintains a read model deterministically, so it is safe to run every time.
class [[whizbang::idempotent]] CustomerStatsUpdater : public whizbang::Receptor<OrderCreated> {
 public:
  CustomerStatsUpdater(CustomerStats& stats, ServiceJournal& journal)
      : stats_(stats), journal_(journal) {}
  void handle(const OrderCreated& event);

 private:
  CustomerStats& stats_;
  ServiceJournal& journal_;
};

}  // namespace shop
