// Messages, a perspective and stage receptors for the perspective rebuild tests.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <whizbang/attributes.hpp>

namespace rebuild {

struct ItemAdded : whizbang::Event {
  std::string sku;
  std::int32_t quantity = 0;
  std::int64_t sequence = 0;  // the event's place in its stream, folded into the model's digest
};
struct ItemRemoved : whizbang::Event {
  std::string sku;
  std::int64_t sequence = 0;
};

// What the perspective and the receptors share with a test.
struct Settings {
  // Written into every model the perspective touches: which code built it (live: 1, rebuild:
  // 2), so a reader can tell old models from new ones.
  std::atomic<std::int32_t> stamp{1};
  std::atomic<std::int64_t> applies{0};
  std::atomic<std::int64_t> receptor_fires{0};
  std::atomic<std::int64_t> audits{0};  // CartAuditor's fires
};

// What CartAuditor returns: cascaded live (an outbox row), dropped during a rebuild.
struct CartAudited : whizbang::Event {
  std::string sku;
};

struct Cart {
  std::int32_t quantity = 0;
  std::int64_t events = 0;
  std::int64_t digest = 0;  // order-sensitive: another order of the same events differs
  std::int32_t stamp = 0;
  std::string last_sku;
};

class CartPerspective : public whizbang::Perspective<Cart> {
 public:
  explicit CartPerspective(Settings& settings) : settings_(settings) {}
  void apply(Cart& model, const ItemAdded& event);
  void apply(Cart& model, const ItemRemoved& event);

 private:
  Settings& settings_;
};

// Receptors a live apply fires around the perspective; a rebuild fires none of them.
class [[whizbang::fire_at(
    whizbang::Stage::PrePerspectiveInline, whizbang::Stage::PostPerspectiveInline,
    whizbang::Stage::PostAllPerspectivesInline, whizbang::Stage::PostLifecycleInline)]] CartWatcher
    : public whizbang::Receptor<ItemAdded> {
 public:
  explicit CartWatcher(Settings& settings) : settings_(settings) {}
  void handle(const ItemAdded& event);

 private:
  Settings& settings_;
};

// Opted in to rebuilds (idempotent(OnReplay::AlwaysFire)): fires at the perspective's Post stage
// live and during a rebuild, where what it returns is dropped.
class [[whizbang::idempotent(whizbang::OnReplay::AlwaysFire)]] [[whizbang::fire_at(
    whizbang::Stage::PostPerspectiveInline)]] CartAuditor
    : public whizbang::Receptor<ItemRemoved, CartAudited> {
 public:
  explicit CartAuditor(Settings& settings) : settings_(settings) {}
  CartAudited handle(const ItemRemoved& event);

 private:
  Settings& settings_;
};

}  // namespace rebuild
