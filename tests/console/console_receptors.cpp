#include "console_receptors.hpp"

#include <whizbang/retry/failure.hpp>

namespace console_test {

CardCharged CardCharger::handle(const ChargeCard& charge) {
  if (gateway_.declining.load()) {
    ++gateway_.declined;
    throw whizbang::PermanentFailure("card declined by the gateway");
  }
  ++gateway_.charged;
  CardCharged charged;
  charged.order_id = charge.order_id;
  return charged;
}

}  // namespace console_test
