// Compile-and-run case: several receptors, cascades with every routing rule, dependencies.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <whizbang/attributes.hpp>
#include <whizbang/message/route.hpp>

namespace run {

struct PlaceOrder : whizbang::Command {
  std::string id;
  int quantity = 0;
};
struct OrderPlaced : whizbang::Event {
  std::string id;
};
struct StockReserved : whizbang::Event {
  std::string id;
  int quantity = 0;
};
struct [[whizbang::default_routing(whizbang::DispatchModes::EventStoreOnly)]] AuditLogged
    : whizbang::Event {
  std::string note;
};
struct [[whizbang::wire_name("run.Shipped")]] Shipped : whizbang::Event {
  std::string id;
};
struct Receipt {
  std::string id;
};

// A dependency: every receptor writes its id here when it runs.
struct Journal {
  std::vector<std::string> runs;
};

using PlaceOrderResult = std::tuple<Receipt, OrderPlaced, whizbang::Routed<StockReserved>,
                                    std::vector<AuditLogged>, whizbang::RoutedNone>;

class PlaceOrderReceptor : public whizbang::Receptor<PlaceOrder, PlaceOrderResult> {
 public:
  explicit PlaceOrderReceptor(Journal& journal) : journal_(journal) {}
  PlaceOrderResult handle(const PlaceOrder& command);

 private:
  Journal& journal_;
};

class [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] FirstOnPlaced
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit FirstOnPlaced(Journal& journal) : journal_(journal) {}
  void handle(const OrderPlaced& event);

 private:
  Journal& journal_;
};

class [[whizbang::default_routing(whizbang::DispatchModes::Outbox)]] SecondOnPlaced
    : public whizbang::Receptor<OrderPlaced, std::tuple<std::optional<Shipped>, AuditLogged>> {
 public:
  explicit SecondOnPlaced(Journal* journal) : journal_(journal) {}
  std::tuple<std::optional<Shipped>, AuditLogged> handle(const OrderPlaced& event);

 private:
  Journal* journal_;
};

class ThirdOnPlaced
    : public whizbang::Receptor<OrderPlaced,
                                whizbang::Routed<std::vector<whizbang::Routed<Shipped>>>> {
 public:
  explicit ThirdOnPlaced(Journal& journal) : journal_(journal) {}
  whizbang::Routed<std::vector<whizbang::Routed<Shipped>>> handle(const OrderPlaced& event);

 private:
  Journal& journal_;
};

class OnShipped : public whizbang::Receptor<Shipped> {
 public:
  explicit OnShipped(Journal& journal) : journal_(journal) {}
  void handle(const Shipped& event) { journal_.runs.push_back("run::OnShipped:" + event.id); }

 private:
  Journal& journal_;
};

}  // namespace run
