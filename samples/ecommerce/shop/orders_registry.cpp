#include "shop/registries.hpp"
#include "whizbang_registry.hpp"

namespace shop {

const whizbang::Registry& orders_registry() { return whizbang::generated::shop_orders::registry(); }

}  // namespace shop
