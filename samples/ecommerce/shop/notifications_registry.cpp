#include "shop/registries.hpp"
#include "whizbang_registry.hpp"

namespace shop {

const whizbang::Registry& notifications_registry() {
  return whizbang::generated::shop_notifications::registry();
}

}  // namespace shop
