// Each service's generated registry, behind a plain function so one program can hold both
// (every whizbang_generate() target has its own whizbang_registry.hpp).
#pragma once

#include <whizbang/registry/registry.hpp>

namespace shop {

const whizbang::Registry& orders_registry();
const whizbang::Registry& notifications_registry();

}  // namespace shop
