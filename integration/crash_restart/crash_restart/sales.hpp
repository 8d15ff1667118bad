// The sales service: takes orders and keeps an order book from what it and fulfilment store.
#pragma once

#include <whizbang/registry/registry.hpp>

#include "crash_restart/messages.hpp"

namespace crash_restart {

class PlaceOrderReceptor : public whizbang::Receptor<PlaceOrder, OrderPlaced> {
 public:
  OrderPlaced handle(const PlaceOrder& command);
};

// One row per order (the order's stream). Counting applications, not setting flags, is what lets
// the harness see an event applied twice.
struct OrderBookEntry {
  std::string order_id;
  int placed = 0;
  int shipped = 0;
  int quantity_shipped = 0;
  // OrderShipped applied to an entry OrderPlaced had not reached: the stream's order broken.
  int shipped_before_placed = 0;
};

class OrderBookPerspective : public whizbang::Perspective<OrderBookEntry> {
 public:
  void apply(OrderBookEntry& entry, const OrderPlaced& event);
  void apply(OrderBookEntry& entry, const OrderShipped& event);
};

// A shipped order earns the customer loyalty points, kept in sales' own table (once across
// services: a copy of the event in another service does not earn them twice).
class [[whizbang::once_across_services]] LoyaltyPoints : public whizbang::Receptor<OrderShipped> {
 public:
  void handle(const OrderShipped& event);
};

// The order book has the shipment: the customer hears of it (an effect outside every store,
// through the perspective gate's stage).
class [[whizbang::fire_at(whizbang::Stage::PostAllPerspectivesInline)]] ShipmentAnnouncer
    : public whizbang::Receptor<OrderShipped> {
 public:
  void handle(const OrderShipped& event);
};

const whizbang::Registry& sales_registry();

}  // namespace crash_restart
