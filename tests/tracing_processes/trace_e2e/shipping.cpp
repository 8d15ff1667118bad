#include "trace_e2e/shipping.hpp"

#include <stdexcept>

#include "whizbang_registry.hpp"

namespace trace_e2e {

void ShipOrderReceptor::handle(const OrderPlaced&) {
  if (state_.failures_left.fetch_sub(1) > 0) {
    std::int64_t none = 0;
    state_.failed_at_us.compare_exchange_strong(none,
                                                whizbang::to_unix_micros(whizbang::Clock::now()));
    throw std::runtime_error("carrier unavailable");
  }
}

void AuditOrder::handle(const OrderPlaced&) {}

const whizbang::Registry& shipping_registry() {
  return whizbang::generated::trace_e2e_shipping::registry();
}

}  // namespace trace_e2e
