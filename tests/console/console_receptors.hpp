// The browser test's service: a card charger whose gateway declines every card until the test
// says otherwise, so its command ends as a dead letter the console then requeues.
#pragma once

#include <whizbang/whizbang.hpp>

#include <atomic>
#include <string>

namespace console_test {

struct ChargeCard : whizbang::Command {
  std::string order_id;
};

struct CardCharged : whizbang::Event {
  std::string order_id;
};

// What the test switches and counts.
struct Gateway {
  std::atomic<bool> declining{true};
  std::atomic<int> declined{0};
  std::atomic<int> charged{0};
};

class CardCharger : public whizbang::Receptor<ChargeCard, CardCharged> {
 public:
  explicit CardCharger(Gateway& gateway) : gateway_(gateway) {}
  // Throws PermanentFailure while the gateway declines: dead-lettered at once.
  CardCharged handle(const ChargeCard& charge);

 private:
  Gateway& gateway_;
};

}  // namespace console_test
