#include "rebuild_models.hpp"

namespace rebuild {

namespace {
std::int64_t fold(std::int64_t digest, std::int64_t value) {
  return (digest * 31 + value) % 1'000'000'007;
}
}  // namespace

void CartPerspective::apply(Cart& model, const ItemAdded& event) {
  model.quantity += event.quantity;
  ++model.events;
  model.digest = fold(model.digest, event.sequence);
  model.stamp = settings_.stamp.load();
  model.last_sku = event.sku;
  ++settings_.applies;
}

void CartPerspective::apply(Cart& model, const ItemRemoved& event) {
  model.quantity -= 1;
  ++model.events;
  model.digest = fold(model.digest, -event.sequence);
  model.stamp = settings_.stamp.load();
  model.last_sku = event.sku;
  ++settings_.applies;
}

void CartWatcher::handle(const ItemAdded&) { ++settings_.receptor_fires; }

CartAudited CartAuditor::handle(const ItemRemoved& event) {
  ++settings_.audits;
  return CartAudited{{}, event.sku};
}

}  // namespace rebuild
