// Golden case: perspectives (read-model projections). Two perspectives share an event, one
// has a constructor dependency and an absl::Status apply, the models nest a plain struct.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <whizbang/attributes.hpp>

#include "absl/status/status.h"

namespace shop {

struct OrderCreated : whizbang::Event {
  std::string order_id;
  std::int32_t items = 0;
};

struct OrderShipped : whizbang::Event {
  std::string order_id;
};

struct ShipOrder : whizbang::Command {
  std::string order_id;
};

struct Money {
  std::int64_t cents = 0;
};

struct OrderSummary {
  std::string order_id;
  std::int32_t items = 0;
  bool shipped = false;
  Money total;
};

struct OrderCount {
  std::int64_t created = 0;
  std::vector<std::string> ids;
};

struct PriceList {
  std::int64_t cents_per_item = 100;
};

// Version 2 of its projection code: PerspectiveInfo::version.
class [[whizbang::version(2)]] OrderSummaryPerspective
    : public whizbang::Perspective<OrderSummary> {
 public:
  explicit OrderSummaryPerspective(const PriceList& prices);
  absl::Status apply(OrderSummary& model, const OrderCreated& event);
  void apply(OrderSummary& model, const OrderShipped& event);

 private:
  const PriceList& prices_;
};

class OrderCountPerspective : public whizbang::Perspective<OrderCount> {
 public:
  void apply(OrderCount& model, const OrderCreated& event);
};

class ShipOrderReceptor : public whizbang::Receptor<ShipOrder, OrderShipped> {
 public:
  OrderShipped handle(const ShipOrder& command);
};

}  // namespace shop
