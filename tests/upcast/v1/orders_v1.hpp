// Version 1 of the upcast fixture's contract: what the "orders" service ran before
// OrderPlaced changed shape. write_v1_fixture.cpp runs it to write tests/data/upcast/; the v3
// code (../v3/orders_v3.hpp) must read all of it. Do not change this file: it IS version 1.
#pragma once

#include <cstdint>
#include <string>

#include <whizbang/attributes.hpp>

namespace fixture {

// No [[whizbang::version]]: version 1, a price in cents only.
struct [[whizbang::wire_name("fixture.OrderPlaced")]] OrderPlaced : whizbang::Event {
  std::string order_id;
  std::int64_t price = 0;
};

struct [[whizbang::wire_name("fixture.OrderNoted")]] OrderNoted : whizbang::Event {
  std::string order_id;
};

// Emits OrderNoted for every OrderPlaced: its id is derived from the OrderPlaced's id, this
// receptor and the OrderNoted type, which the v3 code must derive again, equal.
class NoteOrder : public whizbang::Receptor<OrderPlaced, OrderNoted> {
 public:
  OrderNoted handle(const OrderPlaced& placed) { return OrderNoted{{}, placed.order_id}; }
};

}  // namespace fixture
