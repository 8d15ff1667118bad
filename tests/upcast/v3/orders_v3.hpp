// Version 3 of the upcast fixture's contract. OrderPlaced changed shape twice since v1
// (../v1/orders_v1.hpp): v2 turned the price into an Amount, v3 added the sales channel. The two
// older shapes and the upcasters v1 -> v2 -> v3 let this code read what v1 wrote.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <whizbang/attributes.hpp>

namespace fixture {

struct Amount {
  std::int64_t cents = 0;
  std::string currency;
};

struct [[whizbang::version(1)]] OrderPlacedV1 {
  std::string order_id;
  std::int64_t price = 0;
};

struct [[whizbang::version(2)]] OrderPlacedV2 {
  std::string order_id;
  Amount total;
};

struct [[whizbang::wire_name("fixture.OrderPlaced")]] [[whizbang::version(3)]] OrderPlaced
    : whizbang::Event {
  std::string order_id;
  Amount total;
  std::string channel;
};

// v1 prices were all in euros.
[[whizbang::upcaster]] inline OrderPlacedV2 upcast(const OrderPlacedV1& old) {
  return OrderPlacedV2{old.order_id, Amount{old.price, "EUR"}};
}
// Orders before v3 came from the legacy web shop.
[[whizbang::upcaster]] inline OrderPlaced upcast(const OrderPlacedV2& old) {
  OrderPlaced placed;
  placed.order_id = old.order_id;
  placed.total = old.total;
  placed.channel = "legacy";
  return placed;
}

struct [[whizbang::wire_name("fixture.OrderNoted")]] OrderNoted : whizbang::Event {
  std::string order_id;
};

// The OrderPlaced events NoteOrder handled, as it saw them.
class Seen {
 public:
  void add(const OrderPlaced& placed) {
    std::lock_guard lock(mutex_);
    placed_.push_back(placed);
  }
  std::vector<OrderPlaced> placed() const {
    std::lock_guard lock(mutex_);
    return placed_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<OrderPlaced> placed_;
};

// The same receptor as v1's (same name, same result): its OrderNoted ids must be v1's.
class NoteOrder : public whizbang::Receptor<OrderPlaced, OrderNoted> {
 public:
  explicit NoteOrder(Seen& seen) : seen_(seen) {}
  OrderNoted handle(const OrderPlaced& placed) {
    seen_.add(placed);
    return OrderNoted{{}, placed.order_id};
  }

 private:
  Seen& seen_;
};

struct OrderTotals {
  std::int32_t orders = 0;
  std::int64_t cents = 0;
  std::string currency;
  std::vector<std::string> channels;
};

// Added with v3; its work for the events v1 stored waited in the store.
class OrderTotalsPerspective : public whizbang::Perspective<OrderTotals> {
 public:
  void apply(OrderTotals& totals, const OrderPlaced& placed) {
    ++totals.orders;
    totals.cents += placed.total.cents;
    totals.currency = placed.total.currency;
    totals.channels.push_back(placed.channel);
  }
};

}  // namespace fixture
