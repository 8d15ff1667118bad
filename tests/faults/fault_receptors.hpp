// Receptors and a perspective that fail on request, for the fault tests: they throw standard and
// non-standard exceptions, fail permanently, block on a latch, and count every firing. Parsed by
// whizbang-gen through whizbang_generate().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <whizbang/retry/failure.hpp>
#include <whizbang/whizbang.hpp>

namespace faults {

// A one-shot signal: set() once, wait() until set.
class Latch {
 public:
  void set() {
    {
      std::lock_guard lock(mutex_);
      set_ = true;
    }
    changed_.notify_all();
  }
  // True when set before `limit` passed (tests use generous limits; they never wait for time).
  bool wait(std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return set_; });
  }
  bool is_set() const {
    std::lock_guard lock(mutex_);
    return set_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool set_ = false;
};

// What the receptors report to and read their orders from. Shared by every receptor instance.
class Faults {
 public:
  // `receptor` throws on its next `times` firings (-1: on every firing).
  void fail(const std::string& receptor, int times = -1) {
    std::lock_guard lock(mutex_);
    failures_[receptor] = times;
  }
  // Called by a receptor as it fires: records the firing (with `key`, e.g. an order id) and
  // says whether this firing must fail.
  bool fire(const std::string& receptor, const std::string& key = {}) {
    std::lock_guard lock(mutex_);
    fired_[receptor].push_back(key);
    auto it = failures_.find(receptor);
    if (it == failures_.end() || it->second == 0) return false;
    if (it->second > 0) --it->second;
    return true;
  }
  int count(const std::string& receptor) const {
    std::lock_guard lock(mutex_);
    auto it = fired_.find(receptor);
    return it == fired_.end() ? 0 : static_cast<int>(it->second.size());
  }
  // The keys of every firing of `receptor`, in firing order.
  std::vector<std::string> keys(const std::string& receptor) const {
    std::lock_guard lock(mutex_);
    auto it = fired_.find(receptor);
    return it == fired_.end() ? std::vector<std::string>{} : it->second;
  }

  // `receptor` blocks on its next firings: it signals `entered` and waits for `release` (or
  // two seconds, so that a test whose code under test never releases it still ends).
  void block(const std::string& receptor) {
    std::lock_guard lock(mutex_);
    blocked_ = receptor;
  }
  void pause_if_blocked(const std::string& receptor) {
    {
      std::lock_guard lock(mutex_);
      if (blocked_ != receptor) return;
    }
    entered.set();
    (void)release.wait(std::chrono::seconds(2));
  }

  Latch entered;
  Latch release;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> failures_;
  std::map<std::string, std::vector<std::string>> fired_;
  std::string blocked_;
};

struct ChargeCard : whizbang::Command {
  std::string order_id;
};
struct RejectOrder : whizbang::Command {
  std::string order_id;
};
struct WeirdCommand : whizbang::Command {
  std::string order_id;
};
// Events of one order share a stream when cascaded from one handling.
struct OrderPlaced : whizbang::Event {
  std::string order_id;
  std::int32_t step = 0;
};
struct PlaceOrder : whizbang::Command {
  std::string order_id;
  std::int32_t steps = 1;
};
struct ShipOrder : whizbang::Command {
  std::string order_id;
};
// Published by one service, handled by another: its outbox stages run in the publisher.
struct OrderShipped : whizbang::Event {
  std::string order_id;
  std::int32_t part = 1;
};
// Ships an order in `parts` shipments: one handling, so one stream.
struct ShipInParts : whizbang::Command {
  std::string order_id;
  std::int32_t parts = 2;
};

// Throws a std::runtime_error while told to.
class CardCharger : public whizbang::Receptor<ChargeCard> {
 public:
  explicit CardCharger(Faults& faults) : faults_(faults) {}
  void handle(const ChargeCard& command) {
    if (faults_.fire("CardCharger", command.order_id)) throw std::runtime_error("card declined");
  }

 private:
  Faults& faults_;
};

// Fails permanently: no retry helps an invalid order.
class OrderRejecter : public whizbang::Receptor<RejectOrder> {
 public:
  explicit OrderRejecter(Faults& faults) : faults_(faults) {}
  void handle(const RejectOrder& command) {
    if (faults_.fire("OrderRejecter", command.order_id)) {
      throw whizbang::PermanentFailure("order " + command.order_id + " is invalid");
    }
  }

 private:
  Faults& faults_;
};

// Throws something that is not a std::exception.
class WeirdThrower : public whizbang::Receptor<WeirdCommand> {
 public:
  explicit WeirdThrower(Faults& faults) : faults_(faults) {}
  void handle(const WeirdCommand& command) {
    if (faults_.fire("WeirdThrower", command.order_id)) throw 42;
  }

 private:
  Faults& faults_;
};

// Cascades `steps` events of one order: one handling, one stream.
class OrderPlacer
    : public whizbang::Receptor<PlaceOrder, std::vector<whizbang::Routed<OrderPlaced>>> {
 public:
  explicit OrderPlacer(Faults& faults) : faults_(faults) {}
  std::vector<whizbang::Routed<OrderPlaced>> handle(const PlaceOrder& command) {
    faults_.fire("OrderPlacer", command.order_id);
    std::vector<whizbang::Routed<OrderPlaced>> events;
    for (std::int32_t step = 1; step <= command.steps; ++step) {
      OrderPlaced placed;
      placed.order_id = command.order_id;
      placed.step = step;
      events.push_back(whizbang::Route::Outbox(placed));
    }
    return events;
  }

 private:
  Faults& faults_;
};

// Handles OrderPlaced where it arrives (another service's inbox), in order per stream.
class [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] OrderFollower
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit OrderFollower(Faults& faults) : faults_(faults) {}
  void handle(const OrderPlaced& event) {
    if (faults_.fire("OrderFollower", event.order_id + "#" + std::to_string(event.step))) {
      throw std::runtime_error("follower failed");
    }
  }

 private:
  Faults& faults_;
};

// Runs detached on the executor when OrderPlaced arrives; throws while told to.
class [[whizbang::fire_at(whizbang::Stage::PostInboxDetached)]] DetachedAuditor
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit DetachedAuditor(Faults& faults) : faults_(faults) {}
  void handle(const OrderPlaced& event) {
    if (faults_.fire("DetachedAuditor", event.order_id)) throw 7;
  }

 private:
  Faults& faults_;
};

// The outbox stages of OrderShipped, in the publishing service.
class [[whizbang::fire_at(whizbang::Stage::PreOutboxInline)]] ShipmentGate
    : public whizbang::Receptor<OrderShipped> {
 public:
  explicit ShipmentGate(Faults& faults) : faults_(faults) {}
  void handle(const OrderShipped& event) {
    faults_.pause_if_blocked("ShipmentGate");
    if (faults_.fire("ShipmentGate", event.order_id + "#" + std::to_string(event.part))) {
      throw std::runtime_error("gate closed");
    }
  }

 private:
  Faults& faults_;
};

class [[whizbang::fire_at(whizbang::Stage::PostOutboxInline)]] ShipmentNotice
    : public whizbang::Receptor<OrderShipped> {
 public:
  explicit ShipmentNotice(Faults& faults) : faults_(faults) {}
  void handle(const OrderShipped& event) { faults_.fire("ShipmentNotice", event.order_id); }

 private:
  Faults& faults_;
};

class [[whizbang::fire_at(whizbang::Stage::PostOutboxDetached)]] ShipmentArchiver
    : public whizbang::Receptor<OrderShipped> {
 public:
  explicit ShipmentArchiver(Faults& faults) : faults_(faults) {}
  void handle(const OrderShipped& event) { faults_.fire("ShipmentArchiver", event.order_id); }

 private:
  Faults& faults_;
};

class ShipmentSplitter
    : public whizbang::Receptor<ShipInParts, std::vector<whizbang::Routed<OrderShipped>>> {
 public:
  std::vector<whizbang::Routed<OrderShipped>> handle(const ShipInParts& command) {
    std::vector<whizbang::Routed<OrderShipped>> shipments;
    for (std::int32_t part = 1; part <= command.parts; ++part) {
      OrderShipped shipped;
      shipped.order_id = command.order_id;
      shipped.part = part;
      shipments.push_back(whizbang::Route::Outbox(shipped));
    }
    return shipments;
  }
};

// Where OrderShipped arrives.
class [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] ShipmentReceiver
    : public whizbang::Receptor<OrderShipped> {
 public:
  explicit ShipmentReceiver(Faults& faults) : faults_(faults) {}
  void handle(const OrderShipped& event) {
    faults_.fire("ShipmentReceiver", event.order_id + "#" + std::to_string(event.part));
  }

 private:
  Faults& faults_;
};

class ShipOrderHandler : public whizbang::Receptor<ShipOrder> {
 public:
  explicit ShipOrderHandler(Faults& faults) : faults_(faults) {}
  void handle(const ShipOrder& command) {
    if (faults_.fire("ShipOrderHandler", command.order_id)) {
      throw std::runtime_error("warehouse unreachable");
    }
  }

 private:
  Faults& faults_;
};

// The perspective gate's stages: the counter fires first, so a retry of the stage after
// AllProjected failed must skip it (its record is kept in the database).
class [[whizbang::fire_at(whizbang::Stage::PostAllPerspectivesInline)]] ProjectionCounter
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit ProjectionCounter(Faults& faults) : faults_(faults) {}
  void handle(const OrderPlaced& event) { faults_.fire("ProjectionCounter", event.order_id); }

 private:
  Faults& faults_;
};

class [[whizbang::fire_at(whizbang::Stage::PostAllPerspectivesInline)]] AllProjected
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit AllProjected(Faults& faults) : faults_(faults) {}
  void handle(const OrderPlaced& event) {
    if (faults_.fire("AllProjected", event.order_id)) throw std::runtime_error("mailer down");
  }

 private:
  Faults& faults_;
};

class [[whizbang::fire_at(whizbang::Stage::PostLifecycleInline)]] LifecycleDone
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit LifecycleDone(Faults& faults) : faults_(faults) {}
  void handle(const OrderPlaced& event) { faults_.fire("LifecycleDone", event.order_id); }

 private:
  Faults& faults_;
};

// The steps of each order, in the order they were applied.
struct OrderTrail {
  std::vector<std::int32_t> steps;
};

class OrderTrailPerspective : public whizbang::Perspective<OrderTrail> {
 public:
  explicit OrderTrailPerspective(Faults& faults) : faults_(faults) {}
  void apply(OrderTrail& model, const OrderPlaced& event) {
    if (faults_.fire("OrderTrail", event.order_id + "#" + std::to_string(event.step))) {
      throw std::runtime_error("projection failed");
    }
    model.steps.push_back(event.step);
  }

 private:
  Faults& faults_;
};

}  // namespace faults
