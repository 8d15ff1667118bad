// The orders service of the two-process tracing test: places the order and audits it, once
// across every service.
#pragma once

#include <whizbang/registry/registry.hpp>

#include "trace_e2e/messages.hpp"

namespace trace_e2e {

class PlaceOrderReceptor : public whizbang::Receptor<PlaceOrder, OrderPlaced> {
 public:
  OrderPlaced handle(const PlaceOrder& command);
};

// Fires here, on the local dispatch of OrderPlaced; the invocation travels in the envelope, so
// shipping's AuditOrder (same id) is skipped as fired in another service.
class [[whizbang::once_across_services]] AuditOrder : public whizbang::Receptor<OrderPlaced> {
 public:
  void handle(const OrderPlaced& event);
};

const whizbang::Registry& orders_registry();

}  // namespace trace_e2e
