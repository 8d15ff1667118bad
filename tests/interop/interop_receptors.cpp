#include "interop_messages.hpp"

namespace interop_test {

OrderShipped ShipOrderReceptor::handle(const ShipOrder& command) {
  {
    std::lock_guard lock(log_.mutex);
    log_.handled.push_back(command);
    const whizbang::MessageContext* context = whizbang::MessageContext::current();
    log_.security.push_back(context != nullptr ? context->security : whizbang::SecurityContext());
  }
  log_.changed.notify_all();
  OrderShipped shipped;
  shipped.order_id = command.order_id;
  shipped.shipped_at = command.ship_by;
  return shipped;
}

}  // namespace interop_test
